import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * The offer as it was sold (issue 34): each order item keeps the offer row's columns the
 * distribution view reads (schemas/distribution-offer-view.ts), as they were when the order was
 * placed, so a distributor an exclusivity later leaves out sees its vouchers' offer as it sold it,
 * never as it is now (docs/decisions/0056-offer-as-sold.md). Null only for items written outside
 * the placing transaction. Backfill: items placed before take their offer as it stands at the
 * migration, as migration 0019 did for gift cards' values.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table order_items add column offer_as_sold jsonb`.execute(db);
  await sql`update order_items i set offer_as_sold = jsonb_build_object(
      'id', o.id, 'client_id', o.client_id, 'advertiser_id', o.advertiser_id, 'status', o.status,
      'quantity_in_stock', o.quantity_in_stock, 'document', o.document, 'end_date', o.end_date,
      'published_at', o.published_at, 'updated_at', o.updated_at, 'closed_at', o.closed_at,
      'availability_changed_at', o.availability_changed_at)
    from offers o where o.id = i.offer_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table order_items drop column offer_as_sold`.execute(db);
}
