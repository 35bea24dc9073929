import { z } from 'zod';
import type { StaffWithAdvertiser } from '../store/redemption-staff';
import { IdParam, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';

/*
 * Redemption staff (docs/merchant-counter.md): the counter credentials an advertiser creates on the
 * submission interface. A staff member signs in to `/merchant` once per device with a one-time
 * link or code and may then redeem only that advertiser's vouchers.
 */

/** What an advertiser sends to create a staff member. */
export const RedemptionStaffCreateBody = wrappedBody(
  'redemption_staff',
  z.object({
    name: z.string().trim().min(1).max(100).describe('Shown on the counter page and recorded with each redemption'),
    advertiser_id: IdParam.describe("One of this client's advertisers (GET /advertisers)"),
    postal_codes: z
      .array(z.string().trim().min(1).max(20))
      .min(1)
      .max(50)
      .optional()
      .describe("Only at the advertiser's redemption locations with these postal codes; absent: at every location"),
  }),
).meta({ examples: [{ redemption_staff: { name: 'Ana at the front desk', advertiser_id: 'adv_x1' } }] });

/** A staff member as the submission interface shows it: never a secret. */
export const RedemptionStaff = z.object({
  id: z.string(),
  name: z.string(),
  advertiser_id: z.string(),
  advertiser_name: z.string(),
  postal_codes: z.array(z.string()).nullable(),
  status: z.enum(['active', 'revoked']),
  /** Until when the last sign-in code works; null once it was used (or revoked). */
  sign_in_expires_at: Timestamp.nullable(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
});

/** A one-time sign-in: the link to open on the counter's device, or the code to type at /merchant. Shown once. */
export const StaffSignIn = z.object({
  url: z.string().describe('Opens the counter page signed in (once)'),
  code: z.string().describe('The same, typed at /merchant: 12 letters and digits'),
  expires_at: Timestamp,
});

export const RedemptionStaffResponse = okEnvelope('redemption_staff', RedemptionStaff);
export const RedemptionStaffCreated = RedemptionStaffResponse.extend({ sign_in: StaffSignIn });
export const RedemptionStaffList = listEnvelope('redemption_staff', RedemptionStaff);

export function toRedemptionStaff(s: StaffWithAdvertiser): z.output<typeof RedemptionStaff> {
  return {
    id: s.id,
    name: s.name,
    advertiser_id: s.advertiser_id,
    advertiser_name: s.advertiser_name,
    postal_codes: s.postal_codes,
    status: s.revoked_at ? 'revoked' : 'active',
    sign_in_expires_at: s.sign_in_expires_at,
    created_at: s.created_at,
    revoked_at: s.revoked_at,
  };
}
