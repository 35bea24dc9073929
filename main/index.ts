/*
 * The composition layer's public entry points, for the test suite and the benchmarks (the only
 * folders that may import main/, and only through this file; lint and test/lint/import-graph say
 * so). What `npm start` runs is main/start.ts; this file starts nothing when imported.
 */
export { connectServices, type Services } from './wiring';
export { runWorker } from './worker-only';
export { buildOpenApiDocuments, OPENAPI_DOCUMENTS, openApiFile, type OpenApiDocument } from './openapi';
export { CONFIG_DOCS, renderConfigTable, withConfigTable } from './config-docs';

export { runAdmin } from './admin/run';
