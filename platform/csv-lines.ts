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

/** Bytes of one line read at most (a row is a code and a barcode of at most 64 characters each): the rest of a longer line is skipped, never held. */
export const MAX_LINE_BYTES = 4096;

/** One line: its text (its first MAX_LINE_BYTES only, when `tooLong`) and the byte just after it. */
export interface CsvLine {
  text: string;
  end: number;
  tooLong?: boolean;
}

/**
 * Every line of `source`, which starts at byte `startByte` of the file: its text and the byte just
 * after it (where the next line starts). Holds one chunk and one unfinished line of at most
 * `maxLineBytes` at a time: of a longer line only its start is kept, marked `tooLong`.
 */
export async function* csvLines(source: AsyncIterable<Buffer>, startByte: number, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<CsvLine> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = startByte; // the file position of carry[0] (while a long line is skipped: of the next chunk)
  let longStart: Buffer | null = null; // the start of a line past maxLineBytes, while its rest is skipped
  for await (const chunk of source) {
    let buf = chunk;
    if (longStart) {
      const nl = chunk.indexOf(NL);
      if (nl === -1) {
        offset += chunk.length;
        continue;
      }
      yield { text: clean(longStart.toString('utf8')), end: offset + nl + 1, tooLong: true };
      longStart = null;
      offset += nl + 1;
      buf = chunk.subarray(nl + 1);
    } else if (carry.length) buf = Buffer.concat([carry, chunk]);
    let from = 0;
    for (let nl = buf.indexOf(NL, from); nl !== -1; nl = buf.indexOf(NL, from)) {
      const long = nl - from > maxLineBytes;
      yield {
        text: clean(buf.toString('utf8', from, long ? from + maxLineBytes : nl)),
        end: offset + nl + 1,
        ...(long ? { tooLong: true } : {}),
      };
      from = nl + 1;
    }
    carry = buf.subarray(from);
    offset += from;
    if (carry.length > maxLineBytes) {
      longStart = Buffer.from(carry.subarray(0, maxLineBytes));
      offset += carry.length;
      carry = Buffer.alloc(0);
    }
  }
  if (longStart) yield { text: clean(longStart.toString('utf8')), end: offset, tooLong: true };
  else if (carry.length) yield { text: clean(carry.toString('utf8')), end: offset + carry.length };
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
  const lineStart: number[] = []; // the line's first bytes, enough to know a blank one
  const endLine = () => {
    if (!blankLine(lineLen, lineStart)) count.rows++;
    if (count.rows > o.maxRows) throw o.onTooMany();
    lineLen = 0;
    lineStart.length = 0;
  };
  const add = (chunk: Buffer, from: number, to: number) => {
    for (let i = from; i < to && lineStart.length < BOM_CR.length; i++) lineStart.push(chunk[i]);
    lineLen += to - from;
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
      add(chunk, from, nl);
      endLine();
      from = nl + 1;
    }
    if (from < chunk.length) add(chunk, from, chunk.length);
    yield chunk;
  }
  if (head) {
    count.header = csvFields(clean(head.toString('utf8')));
    count.dataStartByte = head.length;
    o.onHeader(count.header);
  } else endLine();
}

/** A UTF-8 byte order mark and a CR: with either, both or none, a line holds nothing (csvLines reads it as ''). */
const BOM_CR = [0xef, 0xbb, 0xbf, CR];

/** Whether a line of `length` bytes starting with `start` is blank: empty, a CR, a BOM, or a BOM and a CR. */
function blankLine(length: number, start: number[]): boolean {
  if (length === 0) return true;
  if (length === 1) return start[0] === CR;
  if (length !== 3 && length !== 4) return false;
  return start.every((b, i) => b === BOM_CR[i]);
}
