import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocuments, OPENAPI_DOCUMENTS, openApiFile, type OpenApiDocument } from '../../main';

/** Why a committed document is not the built one, or undefined when they are the same bytes. */
function staleness(file: string, committed: string, built: string): string | undefined {
  if (committed === built) return undefined;
  const ours = committed.split('\n');
  const theirs = built.split('\n');
  const line = ours.findIndex((l, i) => l !== theirs[i]);
  return (
    `${path.relative(path.resolve(__dirname, '..', '..'), file)} is stale. Run \`npm run openapi\` to update it, then review and commit the diff.\n` +
    `First difference, line ${line + 1}:\n  committed: ${ours[line]?.trim() ?? '(end of file)'}\n  built:     ${theirs[line]?.trim() ?? '(end of file)'}`
  );
}

/**
 * The committed documents are what a reviewer reads when the API changes (docs/decisions/0032-generated-clients-documents-committed.md), so
 * they must be the ones the routes build. The API is built with no backend, so this runs in the
 * fast lane.
 */
describe('docs/openapi/*.json', () => {
  let built: Record<OpenApiDocument, string>;
  beforeAll(async () => {
    built = await buildOpenApiDocuments();
  });

  it.each(OPENAPI_DOCUMENTS)('docs/openapi/%s.json is the document the API serves (npm run openapi rewrites it)', (name) => {
    const file = openApiFile(name);
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const problem = staleness(file, committed, built[name]);
    if (problem) throw new Error(problem);
  });

  it('a document that differs is refused, naming the line and the command that updates it', () => {
    const edited = built.developer.replace('"operationId": "createSignup"', '"operationId": "signUp"');
    expect(edited).not.toBe(built.developer);
    const line = built.developer.split('\n').findIndex((l) => l.includes('"operationId": "createSignup"')) + 1;
    expect(staleness(openApiFile('developer'), edited, built.developer)).toBe(
      'docs/openapi/developer.json is stale. Run `npm run openapi` to update it, then review and commit the diff.\n' +
        `First difference, line ${line}:\n  committed: "operationId": "signUp",\n  built:     "operationId": "createSignup",`,
    );
  });

  it('says a body is required except where the route runs without one (the key roll)', () => {
    const bodies = (['submission', 'distribution'] as const).flatMap((name) =>
      Object.entries(JSON.parse(built[name]).paths as Record<string, Record<string, { requestBody?: { required?: boolean } }>>).flatMap(
        ([p, ops]) => Object.values(ops).flatMap((op) => (op.requestBody ? [[p, op.requestBody.required]] : [])),
      ),
    );
    expect(bodies.filter(([, required]) => required !== true)).toEqual([
      ['/api_keys/roll', false],
      ['/api_keys/roll', false],
    ]);
    expect(bodies.length).toBeGreaterThan(10);
  });
});
