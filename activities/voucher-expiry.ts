import type { ActivityDeps } from './deps';
import { recordVouchersExpired } from '../store/offer-stock';

/** The offer-review workflow's step at the vouchers' expiry; idempotent through its `key` (workflow id + step). */
export function createVoucherExpiryActivities(deps: Pick<ActivityDeps, 'db'>) {
  return {
    /** `vouchers_expire.on` is over: the offer stops selling, recorded like selling out. */
    async recordVouchersExpired(e: { key: string; offerId: string; vouchersExpireOn: string }): Promise<void> {
      await recordVouchersExpired(deps.db, e);
    },
  };
}
