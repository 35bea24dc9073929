import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiInterface } from '../../../domain/environment';
import type { ServiceDeps } from '../../../services/deps';
import { distributionStatement, distributionStatementCsv, submissionStatement, submissionStatementCsv } from '../../../services/statements';
import { DistributionStatement, StatementQuery, SubmissionStatement } from '../../../schemas/statement';
import { operations } from '../operation';

const op = operations('Statements');

/** A CSV answer in the OpenAPI documents: `text/csv`, not JSON (the string is sent as is, never serialized). */
export const csvResponse = {
  description: 'The statement as CSV (RFC 4180, CRLF rows): a header row of the JSON field names, then one row per line',
  content: { 'text/csv': { schema: z.string() } },
};

/**
 * GET /statement (JSON, or XML by `.xml` or Accept) and GET /statement.csv on both interfaces
 * (docs/statements.md): the advertiser's own offers, or the publisher's own sales, in a period.
 */
export const statementRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps; iface: ApiInterface }> = async (app, { deps, iface }) => {
  const read = (clientId: string, q: StatementQuery) =>
    iface === 'submission' ? submissionStatement(deps, clientId, q) : distributionStatement(deps, clientId, q);
  const what = iface === 'submission' ? 'your offers' : 'your sales';

  app.get(
    '/statement',
    {
      schema: {
        ...op('getStatement', `A statement of ${what} in a period (UTC days, inclusive)`),
        querystring: StatementQuery,
        response: { 200: iface === 'submission' ? SubmissionStatement : DistributionStatement },
      },
    },
    (request) => read(request.client.id, request.query),
  );

  // The `.csv` suffix is its own route: content negotiation (api/plugins) knows JSON and XML only.
  app.get(
    '/statement.csv',
    {
      schema: {
        ...op('getStatementCsv', `The same statement as CSV: a header row, one row per line`),
        querystring: StatementQuery,
        response: { 200: csvResponse },
      },
    },
    async (request, reply) => {
      const statement = await read(request.client.id, request.query);
      const csv =
        iface === 'submission'
          ? submissionStatementCsv(statement as SubmissionStatement)
          : distributionStatementCsv(statement as DistributionStatement);
      const name = `statement-${request.query.from}-${request.query.to}.csv`;
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(csv);
    },
  );
};
