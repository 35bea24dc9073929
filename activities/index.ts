import { createCallbackDeliveryActivities } from './callbacks/delivery';
import { createCallbackDispatcherActivities } from './callbacks/dispatcher';
import { createDataPruningActivities } from './data-pruning';
import type { ActivityDeps } from './deps';
import { createMonthlyStatementActivities } from './monthly-statements';
import { createOfferActivities } from './offers';
import { createOrderActivities } from './orders';
import { createReservationActivities } from './reservations';
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
    ...createCallbackDispatcherActivities(deps),
    ...createCallbackDeliveryActivities(deps),
    ...createOrderActivities(deps),
    ...createReservationActivities(deps),
    ...createMonthlyStatementActivities(deps),
    ...createDataPruningActivities(deps),
    ...createVoucherImportActivities(deps),
    ...createVoucherExportActivities(deps),
    ...createOfferImportActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
