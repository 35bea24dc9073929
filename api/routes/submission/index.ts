import { apiKeyRoutes } from '../shared/api-keys';
import { eventFeedRoutes } from '../shared/events';
import { statementRoutes } from '../shared/statements';
import { voucherRoutes } from '../shared/vouchers';
import { voucherExportRoutes } from '../shared/voucher-exports';
import { advertiserRoutes } from './advertisers';
import { attachmentRoutes } from './attachments';
import { commentRoutes } from './comments';
import { offerRoutes } from './offers';
import { offerReviewRoutes } from './offer-review';
import { offerImportRoutes } from './offer-imports';
import { redemptionRoutes } from './redemptions';
import { voucherImportRoutes } from './voucher-imports';
import { redemptionStaffRoutes } from './redemption-staff';
import type { RoutePlugin } from '../operation';

/** Routes of the submission interface (advertisers), mounted under /submission/beta. */
export const submissionRoutes: RoutePlugin = async (app, { deps }) => {
  await app.register(offerRoutes, { deps });
  await app.register(offerReviewRoutes, { deps });
  await app.register(offerImportRoutes, { deps });
  await app.register(advertiserRoutes, { deps });
  await app.register(attachmentRoutes, { deps });
  await app.register(commentRoutes, { deps });
  await app.register(voucherRoutes, { deps, iface: 'submission' });
  await app.register(voucherExportRoutes, { deps, iface: 'submission' });
  await app.register(eventFeedRoutes, { deps, iface: 'submission' });
  await app.register(statementRoutes, { deps, iface: 'submission' });
  await app.register(apiKeyRoutes, { deps });
  await app.register(redemptionRoutes, { deps });
  await app.register(voucherImportRoutes, { deps });
  await app.register(redemptionStaffRoutes, { deps });
};
