import crypto from 'node:crypto';
import type { ActivityDeps } from './deps';
import { revenueShares } from '../domain/money';
import { Failure } from '../domain/failures';
import { monthNotEnded, monthPeriod, statementRange } from '../domain/statements';
import { statementFiles, toDistributionStatement, toSubmissionStatement } from '../schemas/statement-view';
import { derivedId } from '../store/ids';
import { appendClientEvent } from '../store/offer-events';
import { findMonthlyStatementOfMonth, insertMonthlyStatement, statementClients, type StatementClient } from '../store/monthly-statements';
import { distributionStatementRows, submissionStatementRows } from '../store/statements';
import type { MonthlyStatementJob, MonthlyStatementStored } from '../workflows/monthly-statements-messages';

const CONTENT_TYPES = { json: 'application/json', csv: 'text/csv; charset=utf-8', xml: 'application/xml; charset=utf-8' } as const;

/** Where a client's statement of a month lives in the object store (`<key>.json`, `.csv`, `.xml`). */
export const statementObjectKey = (clientId: string, month: string) => `statements/${clientId}/${month}`;

/** Activities of the monthly-statements workflow (docs/statements.md "Monthly statements"). */
export function createMonthlyStatementActivities(deps: Pick<ActivityDeps, 'db' | 'store' | 'config'>) {
  return {
    /** A page of the clients with a statement for the month, by id. */
    statementClients: (q: { month: string; after: string; limit: number }): Promise<StatementClient[]> => {
      const { from, to } = monthPeriod(q.month);
      const { start, end } = statementRange(from, to);
      return statementClients(deps.db, start, end, q.after, q.limit);
    },

    /**
     * One client's statement of the month: built as GET /statement builds it, its three files put
     * in the object store (the same bytes on every attempt), then its row recorded. Idempotent: a
     * statement recorded before is left as it is; a retry after the files were put writes them
     * again, identical, and records the row.
     */
    storeMonthlyStatement: async (job: MonthlyStatementJob): Promise<MonthlyStatementStored> => {
      // The last guard of "a month is stored once it is over", whoever started the run: refused, not retried.
      const notEnded = monthNotEnded(job.month, new Date());
      if (notEnded) throw new Failure('invalid_field', `month: ${notEnded}`, { field: 'month' });
      const id = derivedId('stm', `${job.clientId}:${job.month}`);
      if (await findMonthlyStatementOfMonth(deps.db, job.clientId, job.month)) return { id, stored: false };
      const q = monthPeriod(job.month);
      const { start, end } = statementRange(q.from, q.to);
      const statement =
        job.iface === 'submission'
          ? toSubmissionStatement(q, await submissionStatementRows(deps.db, job.clientId, start, end))
          : toDistributionStatement(q, await distributionStatementRows(deps.db, job.clientId, start, end, revenueShares(deps.config)));
      const files = statementFiles(statement);
      const key = statementObjectKey(job.clientId, job.month);
      const described = {} as Record<keyof typeof files, { bytes: number; sha256: string }>;
      for (const format of ['json', 'csv', 'xml'] as const) {
        const body = Buffer.from(files[format], 'utf8');
        await deps.store.client.putObject(deps.store.bucket, `${key}.${format}`, body, body.length, {
          'Content-Type': CONTENT_TYPES[format],
        });
        described[format] = { bytes: body.length, sha256: crypto.createHash('sha256').update(body).digest('hex') };
      }
      const lines = 'offers' in statement.statement ? statement.statement.offers.length : statement.statement.lines.length;
      // The row and its statement.ready event (callbacks and feed, one id) commit together, once.
      const stored = await deps.db.transaction().execute(async (trx) => {
        const row = { id, client_id: job.clientId, interface: job.iface, month: job.month, object_key: key, lines, files: described };
        if (!(await insertMonthlyStatement(trx, row))) return false;
        await appendClientEvent(trx, {
          key: `statement.ready:${id}`,
          clientId: job.clientId,
          type: 'statement.ready',
          data: { statement: { id, month: job.month, from: q.from, to: q.to, lines, files: described } },
        });
        return true;
      });
      return { id, stored };
    },
  };
}
