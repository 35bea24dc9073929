import { sql } from 'kysely';
import type { Trx } from './db';
import type { OrderRow } from './database';
import type { PlaceOrderInput } from '../domain/orders';
import type { BatchPlan, OrderChanges } from '../domain/order-plan';
import { accountKey, type OrderState } from '../domain/order-state';
import { customerKey } from '../domain/customer-identity';
import { restrictionsOf } from '../domain/offer-terms';
import { findAccounts } from './accounts';
import { lockOffers, writeStockMoves } from './offer-stock';
import { DISTRIBUTION_VIEW_COLUMNS } from './distribution-search';
import { ORDER_ITEM_COLUMNS, sortVouchers, withDetails, type OrderWithDetails } from './orders';
import { lockUsableReservations, takeReservedUnits } from './reservations';
import { lockAvailableCodes, markCodesIssued } from './supplied-vouchers';
import { countCustomerVouchers } from './vouchers';
import { unnestRows } from './unnest';

/*
 * Placing a batch of orders, the data layer's two halves (docs/order-intake.md; decision 0075): lock
 * and read what the batch's decision needs (lockOrderState), and write what domain/order-plan.ts
 * decided (writeOrderPlan), one statement per table whatever the batch's size. Both run in the
 * caller's one transaction (activities/orders.ts): load → plan → write, one commit per batch.
 * Nothing here decides: a refused order is one the plan left out.
 */

/** Test seam: called inside the placing transaction after the stock is taken, before vouchers exist. */
export interface OrderHooks {
  afterStockTaken?: (orderId: string) => Promise<void>;
}

/**
 * Locks and reads, for the batch: the offers (sorted by id: no deadlock), the order rows already
 * there, the accounts, the usable reservations of its accounts (after the offers), the customers'
 * live vouchers of offers with limit_per_customer, and the supplied codes it may issue. A statement
 * only for what the batch has (no account: no reservation read).
 */
export async function lockOrderState(trx: Trx, orders: readonly PlaceOrderInput[], today: string): Promise<OrderState> {
  const items = orders.flatMap((o) => o.items.map((it) => ({ ...it, order: o })));
  const offers = await lockOffers(
    trx,
    items.map((it) => it.offer_id),
  );
  const accountIds = [...new Set(orders.flatMap((o) => (o.accountId ? [o.accountId] : [])))];
  const limited = items.filter((it) => restrictionsOf(offers.get(it.offer_id)?.document).limit_per_customer !== undefined);
  const needs = new Map<string, number>();
  for (const it of items)
    if (offers.get(it.offer_id)?.sells_supplied_codes) needs.set(it.offer_id, (needs.get(it.offer_id) ?? 0) + it.quantity);
  const [existing, accounts, reservations, held, codes] = await Promise.all([
    trx
      .selectFrom('orders')
      .select(['id', 'request_id'])
      .where(
        'id',
        'in',
        orders.map((o) => o.orderId),
      )
      .execute(),
    findAccounts(trx, accountIds),
    accountIds.length ? lockUsableReservations(trx, { offerIds: [...offers.keys()], accountIds, today }) : [],
    countCustomerVouchers(
      trx,
      limited.map((it) => ({
        offer_id: it.offer_id,
        client_id: it.order.clientId,
        customer_key: customerKey(it.order.customerReference, it.order.customerName),
      })),
    ),
    lockAvailableCodes(
      trx,
      [...needs].map(([offer_id, need]) => ({ offer_id, need })),
    ),
  ]);
  return {
    today,
    offers,
    accounts: new Map(accounts.map((a) => [accountKey(a.client_id, a.id), a])),
    reservations,
    held,
    codes,
    existing: new Map(existing.map((e) => [e.id, e])),
  };
}

/**
 * Writes the batch's plan: the orders, the offers' counts with their events, the items (each with
 * its offer as sold), the vouchers, the reservations' and supplied codes' takes; one statement per
 * table. Returns each placed order as written, by id, so nobody reads it again. An order row that a
 * concurrent placing of the same request wrote meanwhile fails the batch (retried, it then finds it).
 */
export async function writeOrderPlan(trx: Trx, plan: BatchPlan, hooks: OrderHooks = {}): Promise<Map<string, OrderWithDetails>> {
  const placed = plan.decisions.flatMap((d) => (d.kind === 'placed' ? [d.changes] : []));
  if (placed.length === 0) return new Map();
  const rows = await insertOrders(trx, placed);
  if (rows.length < placed.length)
    throw new Error('an order of this batch was placed meanwhile by another attempt; the batch is run again');
  await writeStockMoves(
    trx,
    plan.offers,
    placed.flatMap((c) => c.events),
  );
  for (const c of placed) await hooks.afterStockTaken?.(c.order.id);
  const [items, vouchers] = await Promise.all([insertItems(trx, placed), insertVouchers(trx, placed)]);
  await Promise.all([
    takeReservedUnits(trx, reservationTakes(placed)),
    markCodesIssued(
      trx,
      placed.flatMap((c) => c.codesIssued.map((id) => ({ id, order_id: c.order.id }))),
    ),
  ]);
  return new Map(
    rows.map((r) => {
      const mine = sortVouchers(vouchers.filter((v) => v.order_id === r.id)).map((v) => ({ ...v, redemptions: [], redemption_count: 0 }));
      return [r.id, { ...r, items: items.filter((i) => i.order_id === r.id), vouchers: mine, voucher_count: mine.length }];
    }),
  );
}

/** The orders placed before by these same requests, as placed (their retry's answer). */
export async function ordersPlacedBefore(trx: Trx, ids: string[]): Promise<Map<string, OrderWithDetails>> {
  if (ids.length === 0) return new Map();
  const rows = await trx.selectFrom('orders').selectAll().where('id', 'in', ids).execute();
  return new Map((await withDetails(trx, rows)).map((o) => [o.id, o]));
}

/** Units sold through each reservation, summed over the batch (an UPDATE … FROM takes one row per target). */
function reservationTakes(placed: OrderChanges[]) {
  const sums = new Map<string, number>();
  for (const t of placed.flatMap((c) => c.reservationTakes)) sums.set(t.reservation_id, (sums.get(t.reservation_id) ?? 0) + t.units);
  return [...sums].map(([reservation_id, units]) => ({ reservation_id, units }));
}

async function insertOrders(trx: Trx, placed: OrderChanges[]): Promise<OrderRow[]> {
  const { rows } = await sql<OrderRow>`
    insert into orders (id, client_id, order_number, order_key, account_id, application_id, customer_name, customer_reference,
                        shipping_address, status, request_id)
    select u.id, u.client_id, u.order_number, u.order_key, u.account_id, u.application_id, u.customer_name, u.customer_reference,
           u.shipping_address::jsonb, 'active', u.request_id
    from ${unnestRows(
      'u',
      {
        id: 'text',
        client_id: 'text',
        order_number: 'text',
        order_key: 'text',
        account_id: 'text',
        application_id: 'text',
        customer_name: 'text',
        customer_reference: 'text',
        shipping_address: 'text',
        request_id: 'text',
      },
      placed.map((c) => c.order),
    )}
    on conflict (id) do nothing
    returning *`.execute(trx);
  return rows;
}

/** Each item keeps its offer as it was sold, read under the lock, with the general stock this order left. */
async function insertItems(trx: Trx, placed: OrderChanges[]) {
  const pairs = DISTRIBUTION_VIEW_COLUMNS.map((c) => sql`${sql.lit(c)}, o.${sql.ref(c)}`);
  const { rows } = await sql<{ order_id: string; position: number; offer_id: string; quantity: number }>`
    insert into order_items (order_id, position, offer_id, quantity, offer_as_sold)
    select u.order_id, u.position, u.offer_id, u.quantity,
           (select jsonb_build_object(${sql.join(pairs)}) from offers o where o.id = u.offer_id)
             || case when u.stock_after is null then '{}'::jsonb else jsonb_build_object('quantity_in_stock', u.stock_after) end
    from ${unnestRows(
      'u',
      { order_id: 'text', position: 'int', offer_id: 'text', quantity: 'int', stock_after: 'int' },
      placed.flatMap((c) => c.items),
    )}
    order by u.order_id, u.position
    returning ${sql.join(ORDER_ITEM_COLUMNS.map((c) => sql.ref(c)))}`.execute(trx);
  return rows.sort((a, b) => (a.order_id === b.order_id ? a.position - b.position : a.order_id < b.order_id ? -1 : 1));
}

const VOUCHER_COLUMNS = {
  id: 'text',
  offer_id: 'text',
  order_id: 'text',
  client_id: 'text',
  account_id: 'text',
  reservation_id: 'text',
  counts_stock: 'bool',
  redemption_code: 'text',
  barcode: 'text',
  supplied: 'bool',
  customer_name: 'text',
  customer_key: 'text',
  expiration_date: 'date',
  value_amount: 'bigint',
  value_currency: 'text',
  balance_amount: 'bigint',
  sale_price_amount: 'bigint',
  sale_price_currency: 'text',
  sale_rebate_amount: 'bigint',
  sale_rebate_currency: 'text',
  sale_distributor_revenue: 'bigint',
  sale_account_revenue: 'bigint',
} as const;

async function insertVouchers(trx: Trx, placed: OrderChanges[]) {
  const names = sql.join(Object.keys(VOUCHER_COLUMNS).map((c) => sql.id(c)));
  const { rows } = await sql<OrderWithDetails['vouchers'][number]>`
    insert into vouchers (${names}, status)
    select ${names}, 'acquired' from ${unnestRows(
      'u',
      VOUCHER_COLUMNS,
      placed.flatMap((c) => c.vouchers),
    )}
    returning *`.execute(trx);
  return rows;
}
