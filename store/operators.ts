import type { Db } from './db';

/*
 * The review console's operators added at run time (`admin ops users add`): every read and write
 * of the operators table. The console reads a name's hash on each sign-in, so an operator added
 * or removed here counts at once, in every API process, without a restart.
 */

/** The scrypt hash of the operator with this name, if one was added. */
export async function findOperatorHash(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('operators').select('password_hash').where('name', '=', name).executeTakeFirst();
  return row?.password_hash;
}

/** Whether any operator was added (the console opens with the first one). */
export async function anyOperator(db: Db): Promise<boolean> {
  const row = await db.selectFrom('operators').select('name').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Adds an operator; undefined when the name was added before (also when two adds race). */
export async function insertOperator(db: Db, name: string, passwordHash: string): Promise<{ name: string; created_at: Date } | undefined> {
  return db
    .insertInto('operators')
    .values({ name, password_hash: passwordHash })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning(['name', 'created_at'])
    .executeTakeFirst();
}

/** Removes the operator with this name; false when there was none. */
export async function deleteOperator(db: Db, name: string): Promise<boolean> {
  const res = await db.deleteFrom('operators').where('name', '=', name).executeTakeFirst();
  return res.numDeletedRows > 0n;
}

/** The added operators, by name: never their hashes. */
export function listOperators(db: Db): Promise<Array<{ name: string; created_at: Date }>> {
  return db.selectFrom('operators').select(['name', 'created_at']).orderBy('name').execute();
}
