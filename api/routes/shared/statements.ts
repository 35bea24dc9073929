import type { ApiInterface } from '../../../domain/environment';
import type { ServiceDeps } from '../../../services/deps';
import { distributionStatement, distributionStatementCsv, submissionStatement, submissionStatementCsv } from '../../../services/statements';
import { DistributionStatement, StatementQuery, SubmissionStatement } from '../../../schemas/statement';
import { operations, type RouteApp, type RoutePlugin } from '../operation';
import { getMonthlyStatement, listMonthlyStatements, readMonthlyStatementFile } from '../../../services/monthly-statements';
import { MonthlyStatementList } from '../../../schemas/monthly-statement';
import { PageQuery } from '../../../schemas/pagination';
import { IdParams } from '../../../schemas/common';
import { listReply } from '../../../schemas/envelope';
import { textResponse } from './file-responses';

const op = operations('Statements');

/** A CSV answer in the OpenAPI documents: `text/csv`, not JSON (the string is sent as is, never serialized). */
export const csvResponse = textResponse(
  'The statement as CSV (RFC 4180, CRLF rows): a header row of the JSON field names, then one row per line',
  'text/csv',
);

/** GET /statement and /statement.csv: a period's statement, computed from the sales. */
function periodRoutes(app: RouteApp, deps: ServiceDeps, iface: ApiInterface, what: string) {
  const read = (clientId: string, q: StatementQuery) =>
    iface === 'submission' ? submissionStatement(deps, clientId, q) : distributionStatement(deps, clientId, q);

  app.get(
    '/statement',
    op('getStatement', `A statement of ${what} in a period (UTC days, inclusive)`, {
      querystring: StatementQuery,
      response: { 200: iface === 'submission' ? SubmissionStatement : DistributionStatement },
    }),
    (request) => read(request.client.id, request.query),
  );

  // The `.csv` suffix is its own route: content negotiation (api/plugins) knows JSON and XML only.
  app.get(
    '/statement.csv',
    op('getStatementCsv', `The same statement as CSV: a header row, one row per line`, {
      querystring: StatementQuery,
      response: { 200: csvResponse },
    }),
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
}

/** GET /statements, /statements/:id (+ .xml, .csv): the stored monthly statements. */
function storedRoutes(app: RouteApp, deps: ServiceDeps, iface: ApiInterface, what: string) {
  // The stored monthly statements (docs/statements.md "Monthly statements"): each client's own.
  app.get(
    '/statements',
    op('listStatements', `List the stored monthly statements of ${what}, newest month first`, {
      querystring: PageQuery,
      response: { 200: MonthlyStatementList },
    }),
    async (request) => listReply('statements', await listMonthlyStatements(deps, request.client.id, request.query), request.query),
  );

  app.get(
    '/statements/:id',
    op('getStoredStatement', 'Get one stored monthly statement, as GET /statement answers its month', {
      params: IdParams,
      response: { 200: iface === 'submission' ? SubmissionStatement : DistributionStatement },
    }),
    async (request, reply) => {
      // XML (`.xml` or Accept) is the XML file stored with it, byte for byte. A string is sent as
      // is (never serialized); the reply's type names the JSON schema only, hence the cast.
      if (request.responseFormat === 'xml') {
        const file = await readMonthlyStatementFile(deps, request.client.id, request.params.id, 'xml');
        return reply.type('application/xml; charset=utf-8').send(file.body as never);
      }
      return getMonthlyStatement(deps, request.client.id, request.params.id);
    },
  );

  app.get(
    '/statements/:id.csv',
    op('getStoredStatementCsv', 'Get one stored monthly statement as CSV, the file stored when it was made', {
      params: IdParams,
      response: { 200: csvResponse },
    }),
    async (request, reply) => {
      const file = await readMonthlyStatementFile(deps, request.client.id, request.params.id, 'csv');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="statement-${file.month}.csv"`)
        .send(file.body);
    },
  );
}

/**
 * GET /statement (JSON, or XML by `.xml` or Accept) and GET /statement.csv on both interfaces
 * (docs/statements.md): the advertiser's own offers, or the publisher's own sales, in a period.
 */
export const statementRoutes: RoutePlugin<{ iface: ApiInterface }> = async (app, { deps, iface }) => {
  const what = iface === 'submission' ? 'your offers' : 'your sales';
  periodRoutes(app, deps, iface, what);
  storedRoutes(app, deps, iface, what);
};
