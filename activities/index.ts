import { createCallbackActivities } from './callbacks';
import { createDataPruningActivities } from './data-pruning';
import type { ActivityDeps } from './deps';
import { createIdempotencyKeyActivities } from './idempotency-keys';
import { createMonthlyStatementActivities } from './monthly-statements';
import { createOfferActivities } from './offers';
import { createOrderActivities } from './orders';
import { createReservationActivities } from './reservations';
import { createVoucherExpiryActivities } from './voucher-expiry';
import { createVoucherImportActivities } from './voucher-imports';
import { createVoucherExportActivities } from './voucher-exports';
import { createOfferImportActivities } from './offer-imports';

/**
 * Every activity, as plain functions closed over their dependencies. Workflows import only the
 * type (`proxyActivities<Activities>`), never this module's code.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createOfferActivities(deps),
    ...createCallbackActivities(deps),
    ...createOrderActivities(deps),
    ...createReservationActivities(deps),
    ...createVoucherExpiryActivities(deps),
    ...createMonthlyStatementActivities(deps),
    ...createIdempotencyKeyActivities(deps),
    ...createDataPruningActivities(deps),
    ...createVoucherImportActivities(deps),
    ...createVoucherExportActivities(deps),
    ...createOfferImportActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
