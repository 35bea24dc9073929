import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Db } from './db';
import * as m0001 from './migrations/2026_11_22_0001_api_clients_and_categories';
import * as m0002 from './migrations/2026_11_22_0002_offers';
import * as m0003 from './migrations/2026_11_22_0003_callbacks';
import * as m0004 from './migrations/2026_11_22_0004_distribution_search';
import * as m0005 from './migrations/2026_11_22_0005_orders_vouchers';
import * as m0006 from './migrations/2026_11_23_0006_deployment_settings';
import * as m0007 from './migrations/2026_11_23_0007_attachment_dimensions';
import * as m0008 from './migrations/2026_11_23_0008_offer_availability_changed_at';
import * as m0009 from './migrations/2026_11_23_0009_demo_key';
import * as m0010 from './migrations/2026_11_23_0010_callback_fanout';
import * as m0011 from './migrations/2026_11_23_0011_nationwide_search_flag';
import * as m0012 from './migrations/2026_11_23_0012_advertisers_supplied_vouchers';
import * as m0013 from './migrations/2026_11_23_0013_review_queue_index';
import * as m0014 from './migrations/2026_11_23_0014_placed_locations';
import * as m0015 from './migrations/2026_11_23_0015_developer_signups';
import * as m0016 from './migrations/2026_11_23_0016_search_indexes';
import * as m0017 from './migrations/2026_11_24_0017_operators';
import * as m0018 from './migrations/2026_11_24_0018_postal_codes';
import * as m0019 from './migrations/2026_11_24_0019_voucher_redemptions';
import * as m0020 from './migrations/2026_11_24_0020_reservation_end_reason';
import * as m0021 from './migrations/2026_11_24_0021_customer_limits';
import * as m0030 from './migrations/2026_11_25_0030_event_feed';
import * as m0031 from './migrations/2026_11_25_0031_voucher_sale_figures';
import * as m0032 from './migrations/2026_11_25_0032_statement_indexes';
import * as m0033 from './migrations/2026_11_25_0033_monthly_statements';
import * as m0034 from './migrations/2026_11_25_0034_client_events';
import * as m0035 from './migrations/2026_11_25_0035_intake_order_request_id';
import * as m0036 from './migrations/2026_11_25_0036_search_index_order';
import * as m0037 from './migrations/2026_11_25_0037_search_read_model';
import * as m0038 from './migrations/2026_11_25_0038_search_published_ascending';
import * as m0039 from './migrations/2026_11_27_0039_offer_status_notify';
import * as m0040 from './migrations/2026_11_27_0040_rate_limits';
import * as m0041 from './migrations/2026_11_27_0041_offer_as_sold';
import * as m0042 from './migrations/2026_11_27_0042_redemption_request';
import * as m0043 from './migrations/2026_11_27_0043_customer_key_fold';
import * as m0044 from './migrations/2026_11_27_0044_callback_endpoint_shaping';
import * as m0045 from './migrations/2026_11_27_0045_idempotency_keys';
import * as m0046 from './migrations/2026_11_27_0046_data_retention';
import * as m0050 from './migrations/2026_11_27_0050_voucher_imports';
import * as m0055 from './migrations/2026_11_27_0055_voucher_exports_offer_imports';
import * as m0060 from './migrations/2026_11_27_0060_redemption_staff';
import * as m0063 from './migrations/2026_11_28_0063_idempotency_answers';
import * as m0064 from './migrations/2026_11_28_0064_api_key_rolling';
import * as m0065 from './migrations/2026_11_28_0065_bulk_files_pruned';
import * as m0066 from './migrations/2026_11_28_0066_event_exclusivity';
import * as m0067 from './migrations/2026_11_28_0067_order_key';
import * as m0070 from './migrations/2026_11_28_0070_advertiser_time_zone';
import * as m0071 from './migrations/2026_11_28_0071_review_steps';
import * as m0072 from './migrations/2026_11_28_0072_review_sla';
import * as m0073 from './migrations/2026_11_28_0073_keyword_search';
import * as m0074 from './migrations/2026_11_29_0074_search_cells';

/**
 * Migrations by name, in order. A static map rather than a folder scan, so the same list works
 * under tsx, jest and any bundler. Add each new migration file here.
 */
const MIGRATIONS: Record<string, Migration> = {
  '2026_11_22_0001_api_clients_and_categories': m0001,
  '2026_11_22_0002_offers': m0002,
  '2026_11_22_0003_callbacks': m0003,
  '2026_11_22_0004_distribution_search': m0004,
  '2026_11_22_0005_orders_vouchers': m0005,
  '2026_11_23_0006_deployment_settings': m0006,
  '2026_11_23_0007_attachment_dimensions': m0007,
  '2026_11_23_0008_offer_availability_changed_at': m0008,
  '2026_11_23_0009_demo_key': m0009,
  '2026_11_23_0010_callback_fanout': m0010,
  '2026_11_23_0011_nationwide_search_flag': m0011,
  '2026_11_23_0012_advertisers_supplied_vouchers': m0012,
  '2026_11_23_0013_review_queue_index': m0013,
  '2026_11_23_0014_placed_locations': m0014,
  '2026_11_23_0015_developer_signups': m0015,
  '2026_11_23_0016_search_indexes': m0016,
  '2026_11_24_0017_operators': m0017,
  '2026_11_24_0018_postal_codes': m0018,
  '2026_11_24_0019_voucher_redemptions': m0019,
  '2026_11_24_0020_reservation_end_reason': m0020,
  '2026_11_24_0021_customer_limits': m0021,
  '2026_11_25_0030_event_feed': m0030,
  '2026_11_25_0031_voucher_sale_figures': m0031,
  '2026_11_25_0032_statement_indexes': m0032,
  '2026_11_25_0033_monthly_statements': m0033,
  '2026_11_25_0034_client_events': m0034,
  '2026_11_25_0035_intake_order_request_id': m0035,
  '2026_11_25_0036_search_index_order': m0036,
  '2026_11_25_0037_search_read_model': m0037,
  '2026_11_25_0038_search_published_ascending': m0038,
  '2026_11_27_0039_offer_status_notify': m0039,
  '2026_11_27_0040_rate_limits': m0040,
  '2026_11_27_0041_offer_as_sold': m0041,
  '2026_11_27_0042_redemption_request': m0042,
  '2026_11_27_0043_customer_key_fold': m0043,
  '2026_11_27_0044_callback_endpoint_shaping': m0044,
  '2026_11_27_0045_idempotency_keys': m0045,
  '2026_11_27_0046_data_retention': m0046,
  '2026_11_27_0050_voucher_imports': m0050,
  '2026_11_27_0055_voucher_exports_offer_imports': m0055,
  '2026_11_27_0060_redemption_staff': m0060,
  '2026_11_28_0063_idempotency_answers': m0063,
  '2026_11_28_0064_api_key_rolling': m0064,
  '2026_11_28_0065_bulk_files_pruned': m0065,
  '2026_11_28_0066_event_exclusivity': m0066,
  '2026_11_28_0067_order_key': m0067,
  '2026_11_28_0070_advertiser_time_zone': m0070,
  '2026_11_28_0071_review_steps': m0071,
  '2026_11_28_0072_review_sla': m0072,
  '2026_11_28_0073_keyword_search': m0073,
  '2026_11_29_0074_search_cells': m0074,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** The migrations recorded as applied, or undefined before Kysely's table exists (a new database). */
async function appliedMigrations(db: Db): Promise<Set<string> | undefined> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return new Set(rows.map((r) => r.name));
  } catch {
    return undefined;
  }
}

/**
 * Brings the schema to the latest version; Kysely's migration lock makes concurrent starts safe.
 * A schema already at exactly this list (the usual start) is recognised by one query; anything
 * else, including a database that knows migrations this code does not, goes through the migrator.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const names = Object.keys(MIGRATIONS);
  if (applied && applied.size === names.length && names.every((n) => applied.has(n))) return [];
  return succeeded(await new Migrator({ db, provider }).migrateToLatest());
}

/** Applies the migrations up to and including `name`, in order: a test writes rows between two of them. */
export async function migrateTo(db: Db, name: string): Promise<string[]> {
  return succeeded(await new Migrator({ db, provider }).migrateTo(name));
}

/** The names of the migrations a run applied; throws naming the one that failed. */
function succeeded({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
