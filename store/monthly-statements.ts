import { sql, type Selectable } from 'kysely';
import type { Page, Paged } from '../domain/paging';
import type { Db, Trx } from './db';
import type { MonthlyStatementTable, StatementFiles } from './database';
import { pageOf } from './paging';

/*
 * The stored monthly statements (docs/statements.md "Monthly statements"): which clients get one
 * for a month, and one row per client and month once its files are in the object store.
 */

export type MonthlyStatementRow = Selectable<MonthlyStatementTable>;
export type StatementClient = { client_id: string; interface: 'submission' | 'distribution' };

/**
 * The clients with a statement for the period, ordered by id, after `after`: each advertiser
 * (submission client) with a sale, cancellation, redemption or rollback on its offers, and each
 * distribution client with a sale or cancellation of its own. One set-based query; the workflow
 * pages through it.
 */
export async function statementClients(db: Db, start: Date, end: Date, after: string, limit: number): Promise<StatementClient[]> {
  const inPeriod = (column: string) => sql`(${sql.ref(column)} >= ${start} and ${sql.ref(column)} < ${end})`;
  const { rows } = await sql<StatementClient>`
    select client_id, interface from (
      select o.client_id, 'submission' as interface
        from vouchers v join offers o on o.id = v.offer_id
        where ${inPeriod('v.acquired_at')} or ${inPeriod('v.cancelled_at')}
      union
      select o.client_id, 'submission'
        from voucher_redemptions r join vouchers v on v.id = r.voucher_id join offers o on o.id = v.offer_id
        where ${inPeriod('r.redeemed_at')} or ${inPeriod('r.rolled_back_at')}
      union
      select v.client_id, 'distribution'
        from vouchers v
        where ${inPeriod('v.acquired_at')} or ${inPeriod('v.cancelled_at')}
    ) c
    where client_id collate "C" > ${after}
    order by client_id collate "C"
    limit ${limit}`.execute(db);
  return rows;
}

/** The stored statement of this client and month, if any. */
export function findMonthlyStatementOfMonth(db: Db | Trx, clientId: string, month: string): Promise<MonthlyStatementRow | undefined> {
  return db.selectFrom('monthly_statements').selectAll().where('client_id', '=', clientId).where('month', '=', month).executeTakeFirst();
}

/** One stored statement of this client (another client's is not found). */
export function findMonthlyStatement(db: Db, clientId: string, id: string): Promise<MonthlyStatementRow | undefined> {
  return db.selectFrom('monthly_statements').selectAll().where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
}

/** This client's stored statements, newest month first. */
export function listMonthlyStatements(db: Db, clientId: string, page: Page): Promise<Paged<MonthlyStatementRow>> {
  return pageOf(db.selectFrom('monthly_statements').where('client_id', '=', clientId), page, (q) =>
    q.selectAll().orderBy('month', 'desc').orderBy('id'),
  );
}

/** Records a stored statement; false when this client's month was recorded before (a re-run). */
export async function insertMonthlyStatement(
  trx: Trx,
  row: {
    id: string;
    client_id: string;
    interface: StatementClient['interface'];
    month: string;
    object_key: string;
    lines: number;
    files: StatementFiles;
  },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('monthly_statements')
    .values({ ...row, files: JSON.stringify(row.files) })
    .onConflict((oc) => oc.columns(['client_id', 'month']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return !!inserted;
}
