import { revenueShares } from '../domain/money';
import { statementRange } from '../domain/statements';
import type { DistributionStatement, StatementQuery, SubmissionStatement } from '../schemas/statement';
import { toDistributionStatement, toSubmissionStatement } from '../schemas/statement-view';
import { distributionStatementRows, submissionStatementRows } from '../store/statements';
import type { ServiceDeps } from './deps';

export { distributionStatementCsv, submissionStatementCsv } from '../schemas/statement-view';

/*
 * GET /statement (docs/statements.md): the store groups the period's vouchers and redemptions per
 * offer (and account), summing each voucher's per-unit figures fixed at its sale; the view
 * (schemas/statement-view.ts) makes the lines and their totals per currency.
 */

/** The submission client's statement: its own offers with activity in the period. */
export async function submissionStatement(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  q: StatementQuery,
): Promise<SubmissionStatement> {
  const { start, end } = statementRange(q.from, q.to);
  return toSubmissionStatement(q, await submissionStatementRows(deps.db, clientId, start, end));
}

/** The distribution client's statement: its own orders' vouchers per offer and account. */
export async function distributionStatement(
  deps: Pick<ServiceDeps, 'db' | 'config'>,
  clientId: string,
  q: StatementQuery,
): Promise<DistributionStatement> {
  const { start, end } = statementRange(q.from, q.to);
  // The shares only price vouchers sold before their revenues were stored at sale (migration 0031).
  return toDistributionStatement(q, await distributionStatementRows(deps.db, clientId, start, end, revenueShares(deps.config)));
}
