import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHarness, type Harness } from '../setup/harness';

describe('OpenAPI documents', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const doc = async (iface: string) => {
    const res = await h.app.inject({ method: 'GET', url: `/${iface}/beta/openapi.json` });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it.each(['submission', 'distribution'])('the %s document is valid OpenAPI 3.1', async (iface) => {
    expect(await validateOpenApi(await doc(iface))).toBe('valid');
  });

  it('lists every registered route of each interface', async () => {
    const documented = new Set<string>();
    for (const iface of ['submission', 'distribution']) {
      const d = await doc(iface);
      for (const [p, ops] of Object.entries(d.paths as Record<string, object>)) {
        for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} /${iface}/beta${p.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    const interfaceRoutes = h.app.registeredRoutes.filter(
      (r) => /^\/(submission|distribution)\/beta\//.test(r.url) && !r.url.endsWith('/openapi') && r.method !== 'HEAD',
    );
    expect(interfaceRoutes.length).toBeGreaterThan(5);
    for (const r of interfaceRoutes) expect(documented).toContain(`${r.method} ${r.url}`);
  });

  it('documents XML and the error envelope', async () => {
    const d = await doc('submission');
    const post = d.paths['/offers'].post;
    expect(Object.keys(post.requestBody.content)).toEqual(expect.arrayContaining(['application/json', 'application/xml']));
    expect(Object.keys(post.responses['200'].content)).toEqual(expect.arrayContaining(['application/json', 'application/xml']));
    expect(post.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(d.servers).toEqual([{ url: '/submission/beta' }]);
  });

  it('serves a browsable reference at /docs without any network', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/swagger/i);
    const init = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain('/submission/beta/openapi.json');
  });
});

/**
 * Validates with @apidevtools/swagger-parser in a plain Node process: the validator's ESM
 * dependencies load there (require(esm)) but not inside jest's module system.
 */
function validateOpenApi(document: unknown): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'doc.json');
  fs.writeFileSync(file, JSON.stringify(document));
  const script = `require('@apidevtools/swagger-parser').validate(${JSON.stringify(file)}).then(() => console.log('valid'), (e) => console.log(e.message))`;
  return new Promise((resolve) => execFile(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '..', '..') }, (_e, out) => resolve(out.trim())));
}
