import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * The documentation a newcomer reads stays readable (issue 33 item 5): topic documents small
 * enough to read in one sitting, one short file per decision with an index, and no link that
 * leads nowhere. Pure: reads files, starts nothing.
 */

const ROOT = path.join(__dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs');
const DECISIONS = path.join(DOCS, 'decisions');
const TOPIC_MAX_BYTES = 25 * 1024;
const DECISION_MAX_BYTES = 4 * 1024;

const rel = (file: string): string => path.relative(ROOT, file);

function markdownUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** The product's folders: their code comments point at docs/ by path from the repository root. */
const PRODUCT_FOLDERS = ['activities', 'api', 'domain', 'infra', 'main', 'platform', 'schemas', 'services', 'store', 'worker', 'workflows'];

function codeUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return codeUnder(full);
    return /\.(ts|cjs|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every `docs/….md` (with its `#heading`, if any) a code file names that does not exist. */
function brokenDocPointers(file: string): string[] {
  const broken: string[] = [];
  for (const match of fs.readFileSync(file, 'utf8').matchAll(/\bdocs\/[\w./-]+?\.md(?:#[\w-]+)?/g)) {
    const [filePart, anchor] = match[0].split('#', 2);
    const resolved = path.join(ROOT, filePart);
    if (!fs.existsSync(resolved)) broken.push(`${rel(file)}: ${match[0]} (no such file)`);
    else if (anchor && !anchorsOf(resolved).has(anchor)) broken.push(`${rel(file)}: ${match[0]} (no such heading)`);
  }
  return broken;
}

const decisionFiles = (): string[] => markdownUnder(DECISIONS).filter((file) => path.basename(file) !== 'README.md');

/** The text outside fenced code blocks and inline code, where links and headings mean something. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), spaces as `-`. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  for (const match of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = headingSlug(match[1]);
    let candidate = slug;
    for (let n = 1; anchors.has(candidate); n++) candidate = `${slug}-${n}`;
    anchors.add(candidate);
  }
  return anchors;
}

/** Every relative link of a Markdown file that does not resolve: a missing file, or a missing heading. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const match of prose(fs.readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [filePart, anchor] = target.split('#', 2);
    const resolved = filePart ? path.resolve(path.dirname(file), decodeURI(filePart)) : file;
    if (!fs.existsSync(resolved)) broken.push(`${rel(file)}: ${target} (no such file)`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
      broken.push(`${rel(file)}: ${target} (no such heading in ${rel(resolved)})`);
    }
  }
  return broken;
}

describe('docs layout', () => {
  it('keeps README.md at most 10 KB: a front page that points onwards', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(10 * 1024);
  });

  it(`keeps every document under docs/ at most ${TOPIC_MAX_BYTES / 1024} KB`, () => {
    const large = markdownUnder(DOCS)
      .map((file) => ({ file: rel(file), bytes: fs.statSync(file).size }))
      .filter(({ bytes }) => bytes > TOPIC_MAX_BYTES);
    expect(large).toEqual([]);
  });

  it(`keeps each decision at most ${DECISION_MAX_BYTES / 1024} KB, with Context, Decision and Consequences in that order`, () => {
    const files = decisionFiles();
    expect(files.length).toBeGreaterThan(0);
    const wrong = files.flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1].trim());
      const problems: string[] = [];
      if (Buffer.byteLength(text) > DECISION_MAX_BYTES) problems.push(`${rel(file)}: ${Buffer.byteLength(text)} bytes`);
      if (sections.join('|') !== 'Context|Decision|Consequences') problems.push(`${rel(file)}: sections ${sections.join(', ')}`);
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it('numbers decisions NNNN-short-title.md, each number once, the title heading carrying it', () => {
    const names = decisionFiles().map((file) => path.basename(file));
    const misnamed = names.filter((name) => !/^\d{4}-[a-z0-9-]+\.md$/.test(name));
    expect(misnamed).toEqual([]);
    const numbers = names.map((name) => name.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const name of names) {
      expect(fs.readFileSync(path.join(DECISIONS, name), 'utf8').split('\n')[0]).toMatch(new RegExp(`^# ${name.slice(0, 4)}\\. \\S`));
    }
  });

  it('lists every decision in docs/decisions/README.md', () => {
    const index = fs.readFileSync(path.join(DECISIONS, 'README.md'), 'utf8');
    const missing = decisionFiles()
      .map((file) => path.basename(file))
      .filter((name) => !index.includes(`](${name})`));
    expect(missing).toEqual([]);
  });

  it('has no relative link in README.md, bench/README.md or docs/ that leads nowhere', () => {
    const files = [path.join(ROOT, 'README.md'), path.join(ROOT, 'bench', 'README.md'), ...markdownUnder(DOCS)];
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('has no pointer to docs/ in a code comment that leads nowhere', () => {
    expect(PRODUCT_FOLDERS.flatMap((folder) => codeUnder(path.join(ROOT, folder))).flatMap(brokenDocPointers)).toEqual([]);
  });

  it('finds a code comment pointing at a missing document or heading (the check can fail)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-layout-'));
    const file = path.join(dir, 'a.ts');
    fs.writeFileSync(file, '// docs/architecture.md, docs/decisions/new-thing.md, docs/errors.md#nope\n');
    try {
      expect(brokenDocPointers(file).map((line) => line.split(': ')[1])).toEqual([
        'docs/decisions/new-thing.md (no such file)',
        'docs/errors.md#nope (no such heading)',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds a broken link and a missing heading (the check can fail)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-layout-'));
    const file = path.join(dir, 'a.md');
    fs.writeFileSync(path.join(dir, 'b.md'), '# B\n\n## The customer’s page (`print_url`)\n');
    fs.writeFileSync(file, '[ok](b.md#the-customers-page-print_url) [no](c.md) [gone](b.md#nope) `[code](x.md)`\n');
    try {
      expect(brokenLinks(file).map((line) => line.split(': ')[1])).toEqual([
        'c.md (no such file)',
        `b.md#nope (no such heading in ${rel(path.join(dir, 'b.md'))})`,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
