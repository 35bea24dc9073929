import { boundedDetails, MAX_ERROR_DETAILS, MAX_ERROR_DETAILS_BYTES, type ErrorDetail } from '../../api/errors';
import { checkedLines } from '../../api/routes/submission/offer-import-lines';
import { OFFER_IMPORT_MAX_ERROR_BYTES } from '../../domain/bulk';
import { MAX_REJECTED_VALUE_CHARS, rejectedValue } from '../../domain/voucher-imports';
import { countCsv, csvLines, MAX_LINE_BYTES, type CsvCount } from '../../platform/csv-lines';

/*
 * The budgets of one import request (docs/security.md#work-per-request-is-bounded), each proved on
 * the code that keeps it: bytes per line, details per error and bytes per error record, error bytes
 * per import, time on the event loop between yields, and the bounded stored value of a rejected row.
 */

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

async function* chunks(text: string | Buffer, size = 1000): AsyncGenerator<Buffer> {
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** One line of an offer import naming `n` fields no offer has, each `width` characters long. */
const unknownKeys = (n: number, width = 8) =>
  JSON.stringify({ offer: Object.fromEntries(Array.from({ length: n }, (_, i) => [`u${String(i).padStart(width - 1, '0')}`, 0])) });

describe('error details: the first few, then a count, within a byte budget', () => {
  it('lists at most MAX_ERROR_DETAILS, then one detail counting the rest', () => {
    const many: ErrorDetail[] = Array.from({ length: 100_000 }, (_, i) => ({
      code: 'unknown_field',
      message: `u${i}: unknown field`,
      field: `u${i}`,
    }));
    const kept = boundedDetails(many);
    expect(kept).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(kept.slice(0, 2)).toEqual(many.slice(0, 2));
    expect(kept.at(-1)).toEqual({
      code: 'unknown_field',
      message: `and ${100_000 - MAX_ERROR_DETAILS} more error(s) like these, not listed`,
    });
  });

  it('clips a field name of a megabyte, and keeps the listed details within MAX_ERROR_DETAILS_BYTES', () => {
    const huge = 'k'.repeat(1_000_000);
    const nuls = '\u0000'.repeat(10_000);
    const kept = boundedDetails(
      Array.from({ length: 50 }, (_, i) => ({
        code: 'unknown_field' as const,
        message: `${i ? nuls : huge}: unknown field`,
        field: i ? nuls : huge,
      })),
    );
    expect(kept[0].field).toHaveLength(201);
    expect(bytesOf(kept.slice(0, -1))).toBeLessThanOrEqual(MAX_ERROR_DETAILS_BYTES);
    expect(kept.at(-1)!.message).toMatch(/^and \d+ more error\(s\)/);
  });
});

describe('an offer import file: budgets per line, per error record, per import, and on the event loop', () => {
  it('refuses a line past its byte budget with a short error, unparsed, and checks the others', async () => {
    const good = JSON.stringify({ offer: { title: 'x' } });
    const long = JSON.stringify({ offer: { title: 'x'.repeat(1024 * 1024) } });
    const lines = await checkedLines([good, long, good].join('\n'), 1024 * 1024);
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3]);
    expect(lines[1].errors).toEqual([
      {
        code: 'payload_too_large',
        message: expect.stringMatching(/^the line is \d+ bytes; a line takes at most 1048576, as POST \/offers does$/),
      },
    ]);
    expect(lines[0].errors).toBeDefined(); // an incomplete offer: refused by the schema, as POST /offers would
  });

  it('drops a byte order mark before a line, and a line holding only one is blank, as in a code import', async () => {
    const good = JSON.stringify({ offer: { title: 'x' } });
    const lines = await checkedLines(`\uFEFF${good}\n\uFEFF\n${good}`, 1024);
    expect(lines.map((l) => l.line)).toEqual([1, 3]);
    // Read as the same JSON as the line without one (not refused as malformed JSON).
    expect(lines[0].errors).toEqual(lines[1].errors);
    expect(JSON.stringify(lines[0].errors)).not.toContain('malformed');
  });

  it('a line of thousands of unknown fields leaves one bounded record: the first few named, the rest counted', async () => {
    const [line] = await checkedLines(unknownKeys(5000), 1024 * 1024);
    expect(line.errors).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(bytesOf(line.errors)).toBeLessThanOrEqual(MAX_ERROR_DETAILS_BYTES + 200);
    expect((line.errors as ErrorDetail[]).at(-1)!.message).toBe(`and ${5000 - MAX_ERROR_DETAILS} more error(s) like these, not listed`);
  });

  it("keeps the import's error records within OFFER_IMPORT_MAX_ERROR_BYTES, then one short detail a line", async () => {
    const n = 1300;
    const line = unknownKeys(10, 190);
    const lines = await checkedLines(Array.from({ length: n }, () => line).join('\n'), 1024 * 1024);
    expect(lines.every((l) => l.errors)).toBe(true);
    const total = lines.reduce((sum, l) => sum + bytesOf(l.errors), 0);
    expect(total).toBeLessThanOrEqual(OFFER_IMPORT_MAX_ERROR_BYTES + n * 200);
    expect(lines.at(-1)!.errors).toEqual([{ code: 'unknown_field', message: expect.stringMatching(/^refused; its details are not kept/) }]);
    expect(lines[0].errors!.length).toBeGreaterThan(1);
  });

  it('gives the event loop back between lines: a timer runs while a heavy file is checked', async () => {
    // Enough lines that checking them takes many slices on any machine (8 took ~60 ms on a fast one,
    // too few slices for the count of ticks to say anything).
    const file = Array.from({ length: 48 }, () => unknownKeys(5000)).join('\n');
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    await checkedLines(file, 1024 * 1024);
    const took = performance.now() - started;
    clearInterval(probe);
    // Checked in one go the timer would run once at most, at the end; sliced, it runs throughout
    // (at each yield, a slice of 20 ms or one line apart). Counts only: a loaded machine stretches times.
    expect(took).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThanOrEqual(4);
    expect(longestGap).toBeLessThan(Math.max(took / 3, 100));
  });
});

describe('a code import file: bytes per line, blank lines, rejected values', () => {
  it('reads a line past MAX_LINE_BYTES as its start only, marked tooLong, and the lines after it as before', async () => {
    const long = 'X'.repeat(3_000_000);
    const file = `A-1\n${long}\nA-2\n${'Y'.repeat(MAX_LINE_BYTES + 1)}`;
    const lines = await all(csvLines(chunks(file, 65_536), 10));
    expect(lines.map((l) => [l.text.length, l.tooLong ?? false])).toEqual([
      [3, false],
      [MAX_LINE_BYTES, true],
      [3, false],
      [MAX_LINE_BYTES, true],
    ]);
    expect(lines.map((l) => l.end)).toEqual([14, 14 + long.length + 1, 14 + long.length + 5, 10 + file.length]);
  });

  it('counts a data line holding only a byte order mark (with or without CR) as no row, as the import reads it', async () => {
    const count: CsvCount = { header: null, dataStartByte: 0, rows: 0 };
    const file = Buffer.concat([
      Buffer.from('redemption_code\nN-1\n'),
      Buffer.from([0xef, 0xbb, 0xbf, 0x0a, 0xef, 0xbb, 0xbf, 0x0d, 0x0a]),
      Buffer.from('N-2\r\n\r\n'),
    ]);
    await all(countCsv(chunks(file, 2), count, { onHeader: () => undefined, maxRows: 10, onTooMany: () => new Error('too many') }));
    expect(count.rows).toBe(2);
    const read = await all(csvLines(chunks(file.subarray(count.dataStartByte)), count.dataStartByte));
    expect(read.filter((l) => l.text !== '').map((l) => l.text)).toEqual(['N-1', 'N-2']);
  });

  it('stores a rejected value at a bounded length, NUL shown as U+FFFD (Postgres text holds no NUL)', () => {
    expect(rejectedValue('N\u0000X')).toBe('N\uFFFDX');
    expect(rejectedValue('Z'.repeat(32_000_000))).toBe(`${'Z'.repeat(MAX_REJECTED_VALUE_CHARS)}…`);
  });
});
