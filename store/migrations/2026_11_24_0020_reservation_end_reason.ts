import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Why a reservation ended (issue 20): `offer_cancelled` or `offer_closed` when its offer's end
 * ended it in the same transaction, `cancelled_by_client` or `end_date_passed` otherwise; null
 * while active, and for reservations that ended before this column existed.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('reservations').addColumn('end_reason', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('reservations').dropColumn('end_reason').execute();
}
