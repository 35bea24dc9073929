import { apiKeyRoutes } from '../shared/api-keys';
import { eventFeedRoutes } from '../shared/events';
import { statementRoutes } from '../shared/statements';
import { voucherRoutes } from '../shared/vouchers';
import { voucherExportRoutes } from '../shared/voucher-exports';
import { accountRoutes } from './accounts';
import { distributionOfferRoutes } from './offers';
import { orderRoutes } from './orders';
import { reservationRoutes } from './reservations';
import type { RoutePlugin } from '../operation';

/** Routes of the distribution interface (publishers), mounted under /distribution/beta. */
export const distributionRoutes: RoutePlugin = async (app, { deps }) => {
  await app.register(distributionOfferRoutes, { deps });
  await app.register(accountRoutes, { deps });
  await app.register(orderRoutes, { deps });
  await app.register(reservationRoutes, { deps });
  await app.register(voucherRoutes, { deps, iface: 'distribution' });
  await app.register(voucherExportRoutes, { deps, iface: 'distribution' });
  await app.register(eventFeedRoutes, { deps, iface: 'distribution' });
  await app.register(statementRoutes, { deps, iface: 'distribution' });
  await app.register(apiKeyRoutes, { deps });
};
