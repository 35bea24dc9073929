import { parse } from 'csv-parse/sync';

/*
 * CSV files of one record a line (the bulk code imports, docs/bulk-vouchers.md), read as streams:
 * never held whole. A line is split by csv-parse when it holds a quote, else on its commas (the
 * common case, and much cheaper per line). A quoted field may not span lines.
 */

const NL = 0x0a;
const CR = 0x0d;

/** The fields of one line, or null when it is not valid CSV. */
export function csvFields(line: string): string[] | null {
  if (!line.includes('"')) return line.split(',');
  try {
    const records = parse(line, { relax_column_count: true }) as string[][];
    return records.length === 1 ? records[0] : null;
  } catch {
    return null;
  }
}

/** Strips a line's `\r` (CRLF files) and a UTF-8 byte order mark. */
const clean = (line: string) => line.replace(/\r$/, '').replace(/^\uFEFF/, '');

/**
 * Every line of `source`, which starts at byte `startByte` of the file: its text and the byte just
 * after it (where the next line starts). Holds one chunk and one unfinished line at a time.
 */
export async function* csvLines(source: AsyncIterable<Buffer>, startByte: number): AsyncGenerator<{ text: string; end: number }> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = startByte; // the file position of carry[0]
  for await (const chunk of source) {
    const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    let from = 0;
    for (let nl = buf.indexOf(NL, from); nl !== -1; nl = buf.indexOf(NL, from)) {
      yield { text: clean(buf.toString('utf8', from, nl)), end: offset + nl + 1 };
      from = nl + 1;
    }
    carry = buf.subarray(from);
    offset += from;
  }
  if (carry.length) yield { text: clean(carry.toString('utf8')), end: offset + carry.length };
}

/** What a file's pass-through count found: its header's fields, where its data starts, its non-empty data lines. */
export interface CsvCount {
  header: string[] | null;
  dataStartByte: number;
  rows: number;
}

/** Longest header line read (a file without a line break early is not our CSV). */
const MAX_HEADER_BYTES = 4096;

/**
 * Passes `source` through unchanged while counting: the header (first line) is handed to
 * `onHeader` as soon as it is complete (which may throw to stop the upload), then the non-empty
 * lines are counted; past `maxRows` `onTooMany` is thrown. Bytes are scanned, never decoded.
 */
export async function* countCsv(
  source: AsyncIterable<Buffer>,
  count: CsvCount,
  o: { onHeader: (fields: string[] | null) => void; maxRows: number; onTooMany: () => Error },
): AsyncGenerator<Buffer> {
  let head: Buffer | null = Buffer.alloc(0);
  let lineLen = 0;
  let firstByte = -1;
  const endLine = () => {
    if (lineLen > 1 || (lineLen === 1 && firstByte !== CR)) count.rows++;
    if (count.rows > o.maxRows) throw o.onTooMany();
    lineLen = 0;
    firstByte = -1;
  };
  for await (const chunk of source) {
    let from = 0;
    if (head) {
      const nl = chunk.indexOf(NL);
      head = Buffer.concat([head, nl === -1 ? chunk : chunk.subarray(0, nl)]);
      if (nl === -1 && head.length <= MAX_HEADER_BYTES) {
        yield chunk;
        continue;
      }
      count.header = head.length > MAX_HEADER_BYTES ? null : csvFields(clean(head.toString('utf8')));
      count.dataStartByte = head.length + 1;
      head = null;
      o.onHeader(count.header);
      from = nl + 1;
    }
    for (let nl = chunk.indexOf(NL, from); nl !== -1; nl = chunk.indexOf(NL, from)) {
      if (lineLen === 0 && nl > from) firstByte = chunk[from];
      lineLen += nl - from;
      endLine();
      from = nl + 1;
    }
    if (from < chunk.length) {
      if (lineLen === 0) firstByte = chunk[from];
      lineLen += chunk.length - from;
    }
    yield chunk;
  }
  if (head) {
    count.header = csvFields(clean(head.toString('utf8')));
    count.dataStartByte = head.length;
    o.onHeader(count.header);
  } else endLine();
}
