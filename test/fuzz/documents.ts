import fs from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { OPENAPI_DOCUMENTS, openApiFile } from '../../main';

/*
 * What the fuzz lane calls, read off the published OpenAPI documents (docs/openapi/*.json, the
 * bytes the API serves) rather than kept by hand: a route added to a document is fuzzed the day
 * it is added. The routes the documents leave out (pages, downloads, the console) come from the
 * app's own route list, so they are covered by construction too.
 */

export type Schema = Record<string, unknown>;

/** One documented operation: where it is, what it takes. */
export interface Operation {
  document: string;
  method: string;
  /** The full path template, `/submission/beta/offers/{id}`. */
  path: string;
  params: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }>;
  /** The request body's schema by media type (`application/json`, `application/xml`, …). */
  bodies: Record<string, Schema>;
}

/** Every operation of the three documents, their $refs resolved. */
export async function documentedOperations(): Promise<Operation[]> {
  const ops: Operation[] = [];
  for (const name of OPENAPI_DOCUMENTS) {
    const raw = JSON.parse(fs.readFileSync(openApiFile(name), 'utf8')) as OpenAPIV3_1.Document;
    const doc = (await SwaggerParser.dereference(raw)) as OpenAPIV3_1.Document;
    const base = doc.servers?.[0]?.url ?? '';
    for (const [p, item] of Object.entries(doc.paths ?? {})) {
      for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
        const op = item?.[method];
        if (!op) continue;
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])] as OpenAPIV3_1.ParameterObject[];
        const body = op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
        ops.push({
          document: name,
          method: method.toUpperCase(),
          path: `${base}${p}`,
          params: params
            .filter((x) => x.in === 'path' || x.in === 'query' || x.in === 'header')
            .map((x) => ({ name: x.name, in: x.in as 'path', required: !!x.required, schema: (x.schema ?? {}) as Schema })),
          bodies: Object.fromEntries(Object.entries(body?.content ?? {}).map(([type, c]) => [type, (c.schema ?? {}) as Schema])),
        });
      }
    }
  }
  return ops;
}

/** A route the documents leave out, as Fastify registered it (`/merchant/vouchers/:id/redeem`). */
export interface Page {
  method: string;
  path: string;
}

/**
 * The app's routes that no document lists: the merchant counter, customer and print pages, signed
 * downloads, the operators' console, developer sign-up, health and metrics. The documents' own
 * JSON and the interfaces' documented routes (in whatever form Fastify registered them) are left out.
 */
export function pagesOutsideDocuments(registered: Array<{ method: string; url: string }>, ops: Operation[]): Page[] {
  const documented = new Set(ops.map((o) => `${o.method} ${o.path.replace(/\{(\w+)\}/g, ':$1')}`));
  const seen = new Set<string>();
  return registered
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && !documented.has(`${r.method} ${r.url}`))
    .filter((r) => !/^\/(submission|distribution|developer)\/beta\//.test(r.url) || r.url.includes('openapi'))
    .filter((r) => !seen.has(`${r.method} ${r.url}`) && seen.add(`${r.method} ${r.url}`))
    .map((r) => ({ method: r.method, path: r.url }));
}
