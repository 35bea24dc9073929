import { sql, type Kysely } from 'kysely';
import { customerKey } from '../../domain/customer-identity';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * limit_per_customer counts a customer by `vouchers.customer_key`, and the key of a customer known
 * by name is now the name's full identity fold (issue 34, domain/customer-identity.ts: NFKC,
 * invisible characters removed, case folded, white space collapsed, the UTS #39 confusables
 * skeleton), no longer the name trimmed and lower-cased. Backfill: each distinct name of vouchers
 * keyed by name gets the key placing computes now, so vouchers sold before count with those sold
 * after. The fold is the live one on purpose (the keys must match what placing computes); a later
 * change of the fold adds a backfill of its own. Keys by reference (`ref:`) do not change.
 */

const BATCH = 1000;

export async function up(db: Kysely<any>): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const names: { customer_name: string }[] = (
      await sql<{ customer_name: string }>`select distinct customer_name from vouchers
        where customer_key like 'name:%' and (${after}::text is null or customer_name > ${after})
        order by customer_name limit ${BATCH}`.execute(db)
    ).rows;
    if (names.length === 0) return;
    for (const { customer_name: name } of names) {
      const key = customerKey(undefined, name);
      await sql`update vouchers set customer_key = ${key}
        where customer_name = ${name} and customer_key like 'name:%' and customer_key <> ${key}`.execute(db);
    }
    after = names[names.length - 1].customer_name;
  }
}

export async function down(): Promise<void> {
  // The keys stay folded: the simpler fold is not restored (a stricter key only merges customers).
}
