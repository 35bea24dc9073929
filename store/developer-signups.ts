import { emailSignedUpBefore } from '../domain/developer-signups';
import { insertApiClient } from './api-clients';
import type { DeveloperSignupRow, NewApiClient } from './database';
import type { Db } from './db';

/*
 * Developer sign-ups (spec 5.3): one row per email address, naming the sandbox submission and
 * distribution clients it created. The clients are written by store/api-clients.ts inside the
 * same transaction, so a refused sign-up leaves no key behind.
 */

export interface NewSignup {
  id: string;
  email: string;
  name: string | null;
  clientAddress: string;
  submission: NewApiClient;
  distribution: NewApiClient;
}

/**
 * Writes the sign-up and its two clients in one transaction; refuses (`duplicate`, field `email`)
 * an email address that signed up before, also when two sign-ups for it race (the unique index
 * decides, the loser rolls back).
 */
export function insertSignupWithClients(db: Db, s: NewSignup): Promise<DeveloperSignupRow> {
  return db.transaction().execute(async (trx) => {
    await insertApiClient(trx, s.submission);
    await insertApiClient(trx, s.distribution);
    const row = await trx
      .insertInto('developer_signups')
      .values({
        id: s.id,
        email: s.email,
        name: s.name,
        submission_client_id: s.submission.id,
        distribution_client_id: s.distribution.id,
        client_address: s.clientAddress,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ?? emailSignedUpBefore();
  });
}

/** The sign-up of this email address (lower-case), if any. */
export function findSignupByEmail(db: Db, email: string): Promise<DeveloperSignupRow | undefined> {
  return db.selectFrom('developer_signups').selectAll().where('email', '=', email).executeTakeFirst();
}
