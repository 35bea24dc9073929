import type { Db } from './db';
import type { RedemptionStaffRow } from './database';
import type { Page, Paged } from '../domain/paging';
import { pageOf } from './paging';
import { newId } from './ids';

/*
 * Tables redemption_staff and staff_sessions (migration 2026_11_27_0060): the counter credentials
 * an advertiser creates and the browsers signed in with them (docs/merchant-counter.md). Secrets
 * are stored as SHA-256 hashes only: a sign-in finds its row by the hash of the code it was given
 * (an index lookup, no comparison of secrets in our code), a request its session by the cookie's.
 */

/** A staff member with the advertiser's name, as the pages and answers show them. */
export type StaffWithAdvertiser = RedemptionStaffRow & { advertiser_name: string; advertiser_time_zone: string };

function withAdvertiser(db: Db) {
  return db
    .selectFrom('redemption_staff as s')
    .innerJoin('advertisers as a', 'a.id', 's.advertiser_id')
    .selectAll('s')
    .select(['a.name as advertiser_name', 'a.time_zone as advertiser_time_zone']);
}

export interface NewStaff {
  clientId: string;
  advertiserId: string;
  name: string;
  postalCodes: string[] | null;
  signInHash: string;
  signInExpiresAt: Date;
}

/** Adds a staff member with a fresh one-time sign-in code (its hash). */
export async function insertStaff(db: Db, s: NewStaff): Promise<StaffWithAdvertiser> {
  const id = newId('stf');
  await db
    .insertInto('redemption_staff')
    .values({
      id,
      client_id: s.clientId,
      advertiser_id: s.advertiserId,
      name: s.name,
      postal_codes: s.postalCodes,
      sign_in_hash: s.signInHash,
      sign_in_expires_at: s.signInExpiresAt,
      revoked_at: null,
    })
    .execute();
  return withAdvertiser(db).where('s.id', '=', id).executeTakeFirstOrThrow();
}

/** One staff member of this client (revoked ones too). */
export function findStaff(db: Db, clientId: string, id: string): Promise<StaffWithAdvertiser | undefined> {
  return withAdvertiser(db).where('s.client_id', '=', clientId).where('s.id', '=', id).executeTakeFirst();
}

/** A page of this client's staff (of one advertiser when given), newest first. */
export function listStaff(db: Db, clientId: string, page: Page, advertiserId?: string): Promise<Paged<StaffWithAdvertiser>> {
  let q = db
    .selectFrom('redemption_staff as s')
    .innerJoin('advertisers as a', 'a.id', 's.advertiser_id')
    .where('s.client_id', '=', clientId);
  if (advertiserId) q = q.where('s.advertiser_id', '=', advertiserId);
  return pageOf(q, page, (r) =>
    r
      .selectAll('s')
      .select(['a.name as advertiser_name', 'a.time_zone as advertiser_time_zone'])
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id'),
  );
}

/** Revokes the staff member and ends its sessions at once; false when it was not this client's or revoked before. */
export async function revokeStaff(db: Db, clientId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const res = await trx
      .updateTable('redemption_staff')
      .set({ revoked_at: new Date(), sign_in_hash: null, sign_in_expires_at: null })
      .where('client_id', '=', clientId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await trx.deleteFrom('staff_sessions').where('staff_id', '=', id).execute();
    return res.numUpdatedRows > 0n;
  });
}

/** Gives a staff member who is not revoked a new one-time sign-in code (the old one stops working); false otherwise. */
export async function replaceSignInCode(db: Db, clientId: string, id: string, hash: string, expiresAt: Date): Promise<boolean> {
  const res = await db
    .updateTable('redemption_staff')
    .set({ sign_in_hash: hash, sign_in_expires_at: expiresAt })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/**
 * Uses up the sign-in code with this hash and opens a session, in one transaction: the code works
 * once, before its expiry, for a staff member not revoked. Undefined when no such code is live.
 */
export async function signInWithCode(
  db: Db,
  codeHash: string,
  session: { tokenHash: string; expiresAt: Date },
  now = new Date(),
): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable('redemption_staff')
      .set({ sign_in_hash: null, sign_in_expires_at: null })
      .where('sign_in_hash', '=', codeHash)
      .where('sign_in_expires_at', '>', now)
      .where('revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!used) return undefined;
    await trx.deleteFrom('staff_sessions').where('staff_id', '=', used.id).where('expires_at', '<=', now).execute();
    await trx
      .insertInto('staff_sessions')
      .values({ token_hash: session.tokenHash, staff_id: used.id, expires_at: session.expiresAt })
      .execute();
    return used.id;
  });
}

/** The staff member of a live session (not expired, staff not revoked), with the session's expiry. */
export function sessionStaff(
  db: Db,
  tokenHash: string,
  now = new Date(),
): Promise<(StaffWithAdvertiser & { session_expires_at: Date }) | undefined> {
  return withAdvertiser(db)
    .innerJoin('staff_sessions as ss', 'ss.staff_id', 's.id')
    .select('ss.expires_at as session_expires_at')
    .where('ss.token_hash', '=', tokenHash)
    .where('ss.expires_at', '>', now)
    .where('s.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Ends one session (signing out). */
export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('staff_sessions').where('token_hash', '=', tokenHash).execute();
}
