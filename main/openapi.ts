import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { buildApp } from '../api/app';
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { businessMetrics } from '../platform/metrics';
import { createObjectStore } from '../platform/object-store';
import { createDb } from '../store/db';
import { createRateLimitCounts } from '../store/rate-limits';

/** The three published documents, each committed as docs/openapi/<name>.json (docs/decisions/0032-generated-clients-documents-committed.md). */
export const OPENAPI_DOCUMENTS = ['submission', 'distribution', 'developer'] as const;
export type OpenApiDocument = (typeof OPENAPI_DOCUMENTS)[number];

export const OPENAPI_DIR = path.resolve(__dirname, '..', 'docs', 'openapi');
export const openApiFile = (name: OpenApiDocument) => path.join(OPENAPI_DIR, `${name}.json`);

/**
 * Each document exactly as the API serves it at `/<name>/beta/openapi.json`, pretty-printed in the
 * order the swagger plugin emits it. The API is built as main/wiring.ts builds it, but its backends
 * are never reached (the pools, the Temporal connection and the S3 client connect on first use, and
 * serving a document uses none), so this needs no running stack. The settings are fixed rather than
 * read from the environment, so every machine builds the same bytes; sign-up is on so the
 * developer document exists.
 */
export async function buildOpenApiDocuments(): Promise<Record<OpenApiDocument, string>> {
  const config = loadConfig({ SERVICE_ENVIRONMENT: 'sandbox', DEVELOPER_SIGNUP: 'on' });
  const db = createDb('postgres://offline.invalid/openapi', 1);
  const store = createObjectStore({ endpoint: 'http://offline.invalid', accessKey: '-', secretKey: '-', region: 'us-east-1', bucket: '-' });
  const log = createLogger('silent');
  const rateLimits = createRateLimitCounts('postgres://offline.invalid/openapi', log);
  const app = await buildApp({ config, db, temporal: new Client(), store, log, metrics: businessMetrics, rateLimits });
  try {
    const documents = {} as Record<OpenApiDocument, string>;
    for (const name of OPENAPI_DOCUMENTS) {
      const res = await app.inject({ method: 'GET', url: `/${name}/beta/openapi.json` });
      if (res.statusCode !== 200) throw new Error(`/${name}/beta/openapi.json answered ${res.statusCode}: ${res.body}`);
      documents[name] = `${JSON.stringify(res.json(), null, 2)}\n`;
    }
    return documents;
  } finally {
    await app.close();
    await Promise.all([db.destroy(), rateLimits.close()]);
  }
}

/** `npm run openapi`: rewrites docs/openapi/*.json and names the ones that changed. */
async function writeOpenApiDocuments(): Promise<void> {
  fs.mkdirSync(OPENAPI_DIR, { recursive: true });
  for (const [name, text] of Object.entries(await buildOpenApiDocuments()) as Array<[OpenApiDocument, string]>) {
    const file = openApiFile(name);
    const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    fs.writeFileSync(file, text);
    console.log(`${path.relative(process.cwd(), file)}: ${before === text ? 'unchanged' : 'updated'}`);
  }
}

if (require.main === module) {
  writeOpenApiDocuments().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
