import fs from 'node:fs';
import { z } from 'zod';
import { CONFIG_DOCS, renderConfigTable, withConfigTable } from '../../main';
import { EnvSchema, OWN_SETTINGS_MAX, STANDARD_SETTINGS } from '../../platform/config-schema';
import { doc } from '../../platform/config-values';

describe('docs/configuration.md', () => {
  it('shows the settings the config schema has (else: run npm run docs:config)', () => {
    const page = fs.readFileSync(CONFIG_DOCS, 'utf8');
    if (withConfigTable(page) !== page) {
      throw new Error('docs/configuration.md differs from platform/config-schema.ts: run npm run docs:config');
    }
  });

  it('has a row for every setting, with its default', () => {
    const table = renderConfigTable();
    for (const name of Object.keys(EnvSchema.shape)) expect(table).toContain(`| \`${name}\` |`);
    expect(table).toContain('| `PORT` | `3000` |');
    expect(table).toContain('| `EMBEDDED_S3_PORT` | `9000` |');
  });

  it('refuses a setting without a description, naming it', () => {
    const schema = z.object({ DOCUMENTED: z.string().meta(doc('has one', 'always')), FORGOTTEN: z.string().default('x') });
    expect(() => renderConfigTable(schema)).toThrow(/FORGOTTEN has no description/);
  });

  it('gives every setting of our own why an operator would change it, and says how many there are', () => {
    const page = fs.readFileSync(CONFIG_DOCS, 'utf8');
    const own = Object.keys(EnvSchema.shape).filter((name) => !STANDARD_SETTINGS.has(name));
    expect(own.length).toBeLessThanOrEqual(OWN_SETTINGS_MAX);
    expect(OWN_SETTINGS_MAX).toBe(40);
    expect(page).toContain(`${own.length} settings of our own (at most 40,`);
    for (const name of own) {
      const why = z.globalRegistry.get(EnvSchema.shape[name as keyof typeof EnvSchema.shape])?.why;
      expect([name, typeof why === 'string' && why.length >= 20]).toEqual([name, true]);
      expect(page).toContain(`${why} |`);
    }
  });

  it('refuses a setting of our own without its why, naming it; a standard variable needs none', () => {
    const schema = z.object({
      TEMPORAL_ADDRESS: z.string().describe('standard'),
      OURS: z.string().describe('what it is, not why'),
    });
    expect(() => renderConfigTable(schema)).toThrow(/OURS is a setting of our own without why/);
    expect(renderConfigTable(z.object({ TEMPORAL_ADDRESS: schema.shape.TEMPORAL_ADDRESS }))).toContain(
      '| `TEMPORAL_ADDRESS` |  | standard | (a standard variable: Temporal’s environment configuration) |',
    );
  });

  it('refuses more settings of our own than the limit', () => {
    const settings = (n: number) =>
      z.object(Object.fromEntries(Array.from({ length: n }, (_, i) => [`OWN_${i}`, z.string().meta(doc('a setting', 'a reason'))])));
    expect(() => renderConfigTable(settings(OWN_SETTINGS_MAX))).not.toThrow();
    expect(() => renderConfigTable(settings(OWN_SETTINGS_MAX + 1))).toThrow(/41 settings of our own, more than 40/);
  });

  it('keeps the prose around the table and escapes pipes in a cell', () => {
    const page = fs.readFileSync(CONFIG_DOCS, 'utf8');
    const schema = z.object({ A: z.enum(['x', 'y']).default('x').meta(doc('`x` | `y`', 'a | b')) });
    const next = withConfigTable(page, renderConfigTable(schema));
    expect(next).toContain('| `A` | `x` | `x` \\| `y` | a \\| b |');
    expect(next.split('<!-- settings table')[0]).toBe(page.split('<!-- settings table')[0]);
    expect(next.split('<!-- end of the generated table -->')[1]).toBe(page.split('<!-- end of the generated table -->')[1]);
  });
});
