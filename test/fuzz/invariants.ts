import { sql } from 'kysely';
import type { Client } from '@temporalio/client';
import type { Db } from '../../store/db';
import { listStuckWorkflows, STUCK_AFTER_ATTEMPTS } from '../../services/stuck-workflows';

/*
 * What must still hold after a fuzz run, whatever it sent: the money and stock invariants in
 * Postgres (the ones the chaos run checks, bench/chaos-invariants.ts), and no workflow failed or stuck.
 */

/** The broken invariants, each with its first offending rows; empty when all hold. */
export async function brokenInvariants(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const stock = await sql<{ id: string; initial: number; remaining: number; vouchers: number; reserved: number }>`
    select o.id, o.initial_quantity as initial, o.quantity_in_stock as remaining,
      (select count(*) from vouchers v where v.offer_id = o.id and v.counts_stock and v.status <> 'cancelled')::int as vouchers,
      coalesce((select sum(r.quantity_in_stock) from reservations r where r.offer_id = o.id and r.status = 'active'), 0)::int as reserved
    from offers o where o.initial_quantity is not null`.execute(db);
  for (const r of stock.rows) {
    if (r.remaining < 0) problems.push(`offer ${r.id}: stock ${r.remaining} is negative`);
    if (r.initial !== r.remaining + r.vouchers + r.reserved)
      problems.push(`offer ${r.id}: initial ${r.initial} ≠ remaining ${r.remaining} + vouchers ${r.vouchers} + reserved ${r.reserved}`);
  }
  const repeated = await sql<{ code: string; n: number }>`
    select redemption_code as code, count(*)::int as n from vouchers group by redemption_code having count(*) > 1 limit 5`.execute(db);
  for (const r of repeated.rows) problems.push(`code ${r.code} issued ${r.n} times`);
  const balances = await sql<{ id: string; value: string; balance: string; redeemed: string }>`
    select v.id, v.value_amount as value, v.balance_amount as balance,
      coalesce((select sum(amount) from voucher_redemptions r where r.voucher_id = v.id and r.rolled_back_at is null), 0) as redeemed
    from vouchers v where v.value_amount is not null
      and (v.balance_amount < 0 or v.balance_amount > v.value_amount or v.value_amount - v.balance_amount <>
        coalesce((select sum(amount) from voucher_redemptions r where r.voucher_id = v.id and r.rolled_back_at is null), 0))
    limit 5`.execute(db);
  for (const r of balances.rows) problems.push(`gift card ${r.id}: value ${r.value} − balance ${r.balance} ≠ redeemed ${r.redeemed}`);
  return problems;
}

/** Workflows that failed, and the ones `admin workflows stuck` would list. */
export async function failedOrStuckWorkflows(deps: { db: Db; temporal: Client }): Promise<string[]> {
  const found: string[] = [];
  for await (const wf of deps.temporal.workflow.list({ query: "ExecutionStatus = 'Failed' OR ExecutionStatus = 'TimedOut'" }))
    found.push(`${wf.type} ${wf.workflowId}: ${wf.status.name}`);
  const { workflows } = await listStuckWorkflows(deps, { attempts: STUCK_AFTER_ATTEMPTS, scanLimit: 10_000 });
  for (const w of workflows) found.push(`${w.type} ${w.workflow_id} stuck: ${w.reasons.join(', ')} ${w.last_failure ?? ''}`);
  return found;
}
