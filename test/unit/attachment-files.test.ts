import { cleanFileName, displayFileName, kilobytes, sniffFileType, storageFileName } from '../../domain/attachment-files';

const bytes = (...b: number[]) => Buffer.from(b);

describe('attachment file rules', () => {
  it.each([
    ['JPEG', bytes(0xff, 0xd8, 0xff, 0xdb), 'image/jpeg'],
    ['PNG', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'image/png'],
    ['PDF', Buffer.from('%PDF-1.7'), 'application/pdf'],
    ['ZIP', bytes(0x50, 0x4b, 0x03, 0x04), 'application/zip'],
    ['empty ZIP', bytes(0x50, 0x4b, 0x05, 0x06), 'application/zip'],
  ])('recognises %s by its magic number', (_n, head, type) => {
    expect(sniffFileType(head)?.contentType).toBe(type);
  });

  it.each([
    ['text', Buffer.from('hello world')],
    ['GIF', Buffer.from('GIF89a')],
    ['HTML', Buffer.from('<html><script>')],
    ['a truncated PNG signature', bytes(0x89, 0x50, 0x4e)],
    ['nothing', Buffer.alloc(0)],
  ])('refuses %s', (_n, head) => {
    expect(sniffFileType(head)).toBeUndefined();
  });

  it.each([
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\menu.pdf', 'menu.pdf'],
    ['  spaced name.png ', 'spaced name.png'],
    ['new\nline\u0000.png', 'newline.png'],
    ['evil\u202egnp.exe', 'evilgnp.exe'],
    ['..', ''],
    ['', ''],
    [undefined, ''],
    ['café.jpg', 'café.jpg'],
  ])('cleans the file name %j to %j', (sent, clean) => {
    expect(cleanFileName(sent)).toBe(clean);
  });

  it('shortens very long names but keeps the extension', () => {
    const clean = cleanFileName(`${'a'.repeat(500)}.jpeg`);
    expect(clean).toHaveLength(200);
    expect(clean.endsWith('.jpeg')).toBe(true);
  });

  it('falls back to attachment.<ext> for display and "file" for keys', () => {
    expect(displayFileName('', { contentType: 'application/pdf', extension: 'pdf' })).toBe('attachment.pdf');
    expect(storageFileName('')).toBe('file');
  });

  it.each([
    ['passwd', 'passwd'],
    ['café menu (1).jpg', 'cafe_menu_1_.jpg'],
    ['...hidden', 'hidden'],
    ['a..b.png', 'a.b.png'],
    ['日本.png', 'png'],
  ])('makes %j a key segment %j of safe characters only', (clean, key) => {
    expect(storageFileName(clean)).toBe(key);
    expect(storageFileName(clean)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
  });

  it('counts file_size in kilobytes of 1024 bytes, rounded up', () => {
    expect([1, 1024, 1025, 20 * 1024 * 1024].map(kilobytes)).toEqual([1, 1, 2, 20480]);
  });
});
