import fs from 'node:fs';
import { z } from 'zod';
import { CONFIG_DOCS, renderConfigTable, withConfigTable } from '../../main';
import { EnvSchema } from '../../platform/config-schema';

describe('docs/configuration.md', () => {
  it('shows the settings the config schema has (else: run npm run docs:config)', () => {
    const doc = fs.readFileSync(CONFIG_DOCS, 'utf8');
    if (withConfigTable(doc) !== doc) {
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
    const schema = z.object({ DOCUMENTED: z.string().describe('has one'), FORGOTTEN: z.string().default('x') });
    expect(() => renderConfigTable(schema)).toThrow(/FORGOTTEN has no description/);
  });

  it('keeps the prose around the table and escapes pipes in a cell', () => {
    const doc = fs.readFileSync(CONFIG_DOCS, 'utf8');
    const schema = z.object({ A: z.enum(['x', 'y']).default('x').describe('`x` | `y`') });
    const next = withConfigTable(doc, renderConfigTable(schema));
    expect(next).toContain('| `A` | `x` | `x` \\| `y` |');
    expect(next.split('<!-- settings table')[0]).toBe(doc.split('<!-- settings table')[0]);
    expect(next.split('<!-- end of the generated table -->')[1]).toBe(doc.split('<!-- end of the generated table -->')[1]);
  });
});
