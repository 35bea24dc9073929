import { z } from 'zod';
import type { StaffWithAdvertiser } from '../store/redemption-staff';
import { IdParam, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';

/*
 * Redemption staff (docs/merchant-counter.md): the counter credentials an advertiser creates on the
 * submission interface. A staff member signs in to `/merchant` once per device with a one-time
 * link or code and may then redeem only that advertiser's vouchers. (Descriptions are short: the
 * OpenAPI documents have a size budget.)
 */

export const RedemptionStaffCreateBody = wrappedBody(
  'redemption_staff',
  z.object({
    name: z.string().trim().min(1).max(100),
    advertiser_id: IdParam,
    postal_codes: z
      .array(z.string().trim().min(1).max(20))
      .min(1)
      .max(50)
      .optional()
      .describe("Only at the advertiser's locations with these postal codes"),
  }),
);

/** A staff member as the submission interface shows it; `sign_in` (shown once) only in the answers that issue one. */
export const RedemptionStaff = z.object({
  id: z.string(),
  name: z.string(),
  advertiser_id: z.string(),
  postal_codes: z.array(z.string()).nullable(),
  status: z.enum(['active', 'revoked']),
  created_at: Timestamp,
  sign_in: z
    .object({ url: z.string(), code: z.string(), expires_at: Timestamp })
    .optional()
    .describe('One-time sign-in to /merchant: open the url, or type the code'),
});

export const RedemptionStaffResponse = okEnvelope('redemption_staff', RedemptionStaff);
export const RedemptionStaffList = listEnvelope('redemption_staff', RedemptionStaff);

export function toRedemptionStaff(s: StaffWithAdvertiser): z.output<typeof RedemptionStaff> {
  return {
    id: s.id,
    name: s.name,
    advertiser_id: s.advertiser_id,
    postal_codes: s.postal_codes,
    status: s.revoked_at ? 'revoked' : 'active',
    created_at: s.created_at,
  };
}
