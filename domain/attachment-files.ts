import { refuse } from './failures';

/*
 * Pure rules for uploaded files: which types are allowed (decided from the bytes, never from the
 * name or the declared Content-Type) and how a client's file name becomes a safe display name and
 * a safe object-store key. docs/attachments-and-comments.md describes them.
 */

export interface FileType {
  /** The Content-Type stored and served: the sniffed one, not the one the client declared. */
  contentType: string;
  /** The usual extension, used when a client sends no usable file name. */
  extension: string;
}

const SIGNATURES: { magic: number[][]; type: FileType }[] = [
  { magic: [[0xff, 0xd8, 0xff]], type: { contentType: 'image/jpeg', extension: 'jpg' } },
  { magic: [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]], type: { contentType: 'image/png', extension: 'png' } },
  { magic: [[0x25, 0x50, 0x44, 0x46, 0x2d]], type: { contentType: 'application/pdf', extension: 'pdf' } }, // "%PDF-"
  {
    // Local file header, empty archive, spanned archive: "PK\3\4", "PK\5\6", "PK\7\8".
    magic: [
      [0x50, 0x4b, 0x03, 0x04],
      [0x50, 0x4b, 0x05, 0x06],
      [0x50, 0x4b, 0x07, 0x08],
    ],
    type: { contentType: 'application/zip', extension: 'zip' },
  },
];

/** How many leading bytes `sniffFileType` needs to decide. */
export const SNIFF_BYTES = Math.max(...SIGNATURES.flatMap((s) => s.magic.map((m) => m.length)));

export const ALLOWED_TYPES_TEXT = 'JPG, PNG, PDF or ZIP';
/** The Content-Types a stored file may have (what a download answers). */
export const ALLOWED_CONTENT_TYPES: readonly string[] = SIGNATURES.map((s) => s.type.contentType);

/** The allowed type whose magic number starts `head`, or undefined for anything else. */
export function sniffFileType(head: Uint8Array): FileType | undefined {
  const hit = SIGNATURES.find((s) => s.magic.some((m) => head.length >= m.length && m.every((b, i) => head[i] === b)));
  return hit?.type;
}

// C0/C1 control characters, and bidirectional overrides that make "gpj.exe" display as "exe.jpg".
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const MAX_NAME_CHARS = 200;

/**
 * What the client sent as a file name, made harmless: the last path segment only (so
 * `../../etc/passwd` is `passwd`), without control or bidi characters, at most 200 characters
 * with its extension kept. May be empty; never used as a path or key as it is.
 */
export function cleanFileName(sent: string | undefined): string {
  const base = (sent ?? '').normalize('NFC').replace(UNSAFE_CHARS, '').split(/[/\\]/).pop()!.trim();
  const name = /^\.*$/.test(base) ? '' : base;
  if (name.length <= MAX_NAME_CHARS) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  return name.slice(0, MAX_NAME_CHARS - ext.length) + ext;
}

/** Extensions that already name each type correctly. */
const SYNONYMS: Record<string, string[]> = { 'image/jpeg': ['jpg', 'jpeg', 'jpe'] };

/**
 * The name a download is saved under: the stored name with its extension made to match the type
 * sniffed from the bytes, so a PDF uploaded as `x.html` downloads as `x.pdf` and is never opened
 * as a web page. A name whose extension already fits keeps it.
 */
export function downloadFileName(name: string, contentType: string): string {
  const type = SIGNATURES.find((s) => s.type.contentType === contentType)?.type;
  if (!type) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if ((SYNONYMS[type.contentType] ?? [type.extension]).includes(ext)) return name;
  return `${dot > 0 ? name.slice(0, dot) : name || 'attachment'}.${type.extension}`;
}

/** The name shown back to clients: the cleaned name, or `attachment.<ext>` when nothing usable was sent. */
export function displayFileName(clean: string, type: FileType): string {
  return clean || `attachment.${type.extension}`;
}

/**
 * The file name's part of an object key: ASCII letters, digits, `.`, `-`, `_` only, no leading dot,
 * at most 100 characters. The key itself is `<client id>/<attachment id>/<this>`, so it is unique
 * and can never climb out of its prefix whatever the client sent.
 */
export function storageFileName(clean: string): string {
  const slug = clean
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._-]+/, '')
    .slice(-100);
  return slug || 'file';
}

/** `file_size` is in kilobytes of 1024 bytes, rounded up, so any non-empty file is at least 1. */
export function kilobytes(bytes: number): number {
  return Math.ceil(bytes / 1024);
}

/** An attachment shown by offers that have not ended is not deleted: `offers` are the first few, at most `max`. */
export function requireAttachmentUnused(id: string, offers: string[], max: number): void {
  if (offers.length)
    refuse(
      'attachment_in_use',
      `attachment ${id} is shown by ${offers.length === max ? 'at least ' : ''}${offers.length} offer(s) that have not ended: ${offers.join(', ')}; remove it from their creative.original_media first (withdraw, edit, resubmit)`,
      { attachment_id: id, offer_ids: offers },
    );
}
