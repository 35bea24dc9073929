import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { AdvertiserRow } from './database';
import type { Page, Paged } from '../domain/paging';
import { requireAdvertiserNameFree } from '../domain/offer-edits';
import { newId } from './ids';
import { pageOf } from './paging';

/*
 * The advertisers of submission clients (agents submit for many). An advertiser's id is given
 * once and kept across renames, so `/advertisers/:advertiser_id/...` integrations keep working;
 * its name is unique per client, compared case-insensitively.
 */

// Both sides folded by Postgres's lower(), as the unique index is: JavaScript's toLowerCase folds
// some letters differently (newer Unicode), and a name stored but then not found was a 500.
const byName = (db: Db | Trx, clientId: string, name: string) =>
  db
    .selectFrom('advertisers')
    .selectAll()
    .where('client_id', '=', clientId)
    .where(sql<string>`lower(name)`, '=', sql<string>`lower(${name.trim()})`);

/** This client's advertiser with this id, or undefined (another client's is not found). */
export function findAdvertiser(db: Db | Trx, clientId: string, id: string): Promise<AdvertiserRow | undefined> {
  return db.selectFrom('advertisers').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** This client's advertiser of this name (case-insensitive), or undefined. */
export function findAdvertiserByName(db: Db | Trx, clientId: string, name: string): Promise<AdvertiserRow | undefined> {
  return byName(db, clientId, name).executeTakeFirst();
}

/** The client's advertiser of this name, created on first use; concurrent first uses get the same one. */
export async function ensureAdvertiser(trx: Db | Trx, clientId: string, name: string): Promise<string> {
  await trx
    .insertInto('advertisers')
    .values({ id: newId('adv'), client_id: clientId, name: name.trim() })
    .onConflict((oc) => oc.expression(sql`client_id, lower(name)`).doNothing())
    .execute();
  return (await byName(trx, clientId, name).executeTakeFirstOrThrow()).id;
}

/**
 * Gives the advertiser the name an offer now names it by. A name another advertiser of the client
 * already has is refused: the client moves the offer to that advertiser by sending its id instead.
 */
export async function renameAdvertiser(trx: Trx, clientId: string, id: string, name: string): Promise<void> {
  const other = await byName(trx, clientId, name).where('id', '!=', id).executeTakeFirst();
  requireAdvertiserNameFree(other);
  await trx
    .updateTable('advertisers')
    .set({ name: name.trim(), updated_at: new Date() })
    .where('id', '=', id)
    .where('client_id', '=', clientId)
    .where('name', '!=', name.trim())
    .execute();
}

/** Sets the advertiser's time zone (already validated); undefined when the client has no such advertiser. */
export async function setAdvertiserTimeZone(db: Db, clientId: string, id: string, timeZone: string): Promise<AdvertiserRow | undefined> {
  return db
    .updateTable('advertisers')
    .set({ time_zone: timeZone, updated_at: new Date() })
    .where('id', '=', id)
    .where('client_id', '=', clientId)
    .returningAll()
    .executeTakeFirst();
}

/** One page of this client's advertisers, by name. */
export function listAdvertisers(db: Db, clientId: string, page: Page): Promise<Paged<AdvertiserRow>> {
  return pageOf(db.selectFrom('advertisers').where('client_id', '=', clientId), page, (q) =>
    q
      .selectAll()
      .orderBy(sql`lower(name)`)
      .orderBy('id'),
  );
}
