import { sql } from 'kysely';
import type { Db } from '../store/db';

/** One order a chaos run placed, and what the API answered. */
export interface Outcome {
  orderNumber: string;
  quantity: number;
  status: number | 'error';
  orderId?: string;
  codes?: string[];
}

/** Prints one check as ✓ or ✗ (with its first problems); returns its name when broken. */
export function printCheck(say: (line: string) => void, name: string, problems: string[]): string[] {
  say(`${problems.length ? '✗' : '✓'} ${name}${problems.length ? `: ${problems.slice(0, 5).join('; ')}` : ''}`);
  return problems.length ? [name] : [];
}

/** The invariants a buyer relies on, each printed as ✓ or ✗; returns the names of the broken ones. */
export async function checkInvariants(db: Db, outcomes: Outcome[], say: (line: string) => void): Promise<string[]> {
  const broken: string[] = [];
  const check = (name: string, problems: string[]) => broken.push(...printCheck(say, name, problems));
  const orders = await db
    .selectFrom('orders')
    .select(['id', 'order_number', 'client_id', 'status'])
    .where('order_number', 'like', 'chaos-%')
    .execute();
  const byNumber = new Map(orders.map((o) => [o.order_number, o]));
  const vouchers = await db.selectFrom('vouchers').select(['order_id', 'redemption_code', 'status']).execute();
  const codesOf = new Map<string, string[]>();
  for (const v of vouchers) codesOf.set(v.order_id, [...(codesOf.get(v.order_id) ?? []), v.redemption_code]);

  check(
    'every order answered 200 exists with exactly its vouchers',
    outcomes
      .filter((o) => o.status === 200)
      .flatMap((o) => {
        const row = byNumber.get(o.orderNumber);
        if (!row || row.id !== o.orderId) return [`${o.orderNumber} missing`];
        const stored = (codesOf.get(row.id) ?? []).sort();
        return JSON.stringify(stored) === JSON.stringify(o.codes)
          ? []
          : [`${o.orderNumber} has ${stored.length} vouchers, answered ${o.codes?.length}`];
      }),
  );
  const dupCodes = await db
    .selectFrom('vouchers')
    .select('redemption_code')
    .groupBy('redemption_code')
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  check(
    'no voucher code repeats',
    dupCodes.map((d) => d.redemption_code),
  );
  const stock = await sql<{ id: string; initial: number; remaining: number; vouchers: number; reserved: number }>`
    select o.id, o.initial_quantity as initial, o.quantity_in_stock as remaining,
      (select count(*) from vouchers v where v.offer_id = o.id and v.counts_stock and v.status <> 'cancelled')::int as vouchers,
      coalesce((select sum(r.quantity_in_stock) from reservations r where r.offer_id = o.id and r.status = 'active'), 0)::int as reserved
    from offers o where o.initial_quantity is not null`.execute(db);
  check(
    'for every offer: initial stock = remaining + units of active vouchers + units held by active reservations',
    stock.rows
      .filter((r) => r.initial !== r.remaining + r.vouchers + r.reserved)
      .map((r) => `${r.id}: ${r.initial} ≠ ${r.remaining} + ${r.vouchers} + ${r.reserved}`),
  );
  const dupOrders = await db
    .selectFrom('orders')
    .select(['client_id', 'order_number'])
    .groupBy(['client_id', 'order_number'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  check(
    'no order_number fulfilled twice',
    dupOrders.map((d) => d.order_number),
  );
  check(
    'every order that got an error or a timeout is absent or complete, never half',
    outcomes
      .filter((o) => o.status !== 200)
      .flatMap((o) => {
        const row = byNumber.get(o.orderNumber);
        if (!row) return [];
        const n = (codesOf.get(row.id) ?? []).length;
        return n === o.quantity ? [] : [`${o.orderNumber} has ${n} of ${o.quantity} vouchers`];
      }),
  );
  return broken;
}
