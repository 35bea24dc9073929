import crypto from 'node:crypto';
import type { ServiceDeps } from './deps';
import type { Page, Paged } from '../domain/paging';
import { Failure, invalidField, notFound } from '../domain/failures';
import { findAdvertiser } from '../store/advertisers';
import {
  findStaff,
  insertStaff,
  listStaff as listStaffRows,
  replaceSignInCode,
  revokeStaff as revokeStaffRow,
} from '../store/redemption-staff';
import { toRedemptionStaff } from '../schemas/redemption-staff';
import { groupedCode, normalizeSignInCode } from '../domain/redemption-codes';

/*
 * Redemption staff, managed by the advertiser's submission client (and the admin CLI): create with
 * a one-time sign-in, list, give a new sign-in, revoke (docs/merchant-counter.md). The counter
 * itself is services/merchant-counter.ts.
 */

type Deps = Pick<ServiceDeps, 'db' | 'config'>;
type StaffView = ReturnType<typeof toRedemptionStaff>;
export interface StaffSignIn {
  url: string;
  code: string;
  expires_at: Date;
}

/** The counter page's address: the sign-in link is under it. */
export const MERCHANT_PATH = '/merchant';

/** 12 characters, 60 random bits, grouped `XXXX-XXXX-XXXX` (domain/redemption-codes.ts): a one-time sign-in code. */
const newSignInCode = () => groupedCode(crypto.randomBytes(12));

/** The SHA-256 a secret (sign-in code, session token) is stored and found by. */
export function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

function issueSignIn(deps: Deps, siteBase: string): { signIn: StaffSignIn; hash: string } {
  const code = newSignInCode();
  const expires = new Date(Date.now() + deps.config.MERCHANT_SIGN_IN_HOURS * 3_600_000);
  return {
    signIn: { url: `${siteBase}${MERCHANT_PATH}/sign-in/${code}`, code, expires_at: expires },
    hash: secretHash(normalizeSignInCode(code)),
  };
}

export interface StaffInput {
  name: string;
  advertiser_id: string;
  postal_codes?: string[];
}

/** Creates a staff member of one of this client's advertisers, with its one-time sign-in (shown only now). */
export async function createStaff(
  deps: Deps,
  clientId: string,
  input: StaffInput,
  siteBase: string,
): Promise<{ staff: StaffView; signIn: StaffSignIn }> {
  if (!(await findAdvertiser(deps.db, clientId, input.advertiser_id)))
    throw invalidField('advertiser_id', `advertiser ${input.advertiser_id} is not one of this client's (GET /advertisers)`);
  const { signIn, hash } = issueSignIn(deps, siteBase);
  const row = await insertStaff(deps.db, {
    clientId,
    advertiserId: input.advertiser_id,
    name: input.name,
    postalCodes: input.postal_codes ? [...new Set(input.postal_codes.map(postalKey))] : null,
    signInHash: hash,
    signInExpiresAt: signIn.expires_at,
  });
  return { staff: toRedemptionStaff(row), signIn };
}

/** A postal code as staff locations and offers' locations are compared: upper case, no spaces. */
export const postalKey = (code: string) => code.toUpperCase().replace(/\s+/g, '');

export async function listStaff(deps: Deps, clientId: string, page: Page, advertiserId?: string): Promise<Paged<StaffView>> {
  const { rows, total } = await listStaffRows(deps.db, clientId, page, advertiserId);
  return { rows: rows.map(toRedemptionStaff), total };
}

export async function getStaff(deps: Deps, clientId: string, id: string): Promise<StaffView> {
  const row = await findStaff(deps.db, clientId, id);
  if (!row) throw notFound('redemption staff');
  return toRedemptionStaff(row);
}

/** Revokes the staff member: its sessions end at once, its sign-in stops working. Revoking again answers it as it is. */
export async function revokeStaff(deps: Deps, clientId: string, id: string): Promise<StaffView> {
  await getStaff(deps, clientId, id);
  await revokeStaffRow(deps.db, clientId, id);
  return getStaff(deps, clientId, id);
}

/** A new one-time sign-in for another device (the previous code stops working); refused for a revoked staff member. */
export async function newSignIn(
  deps: Deps,
  clientId: string,
  id: string,
  siteBase: string,
): Promise<{ staff: StaffView; signIn: StaffSignIn }> {
  await getStaff(deps, clientId, id);
  const { signIn, hash } = issueSignIn(deps, siteBase);
  if (!(await replaceSignInCode(deps.db, clientId, id, hash, signIn.expires_at)))
    throw new Failure('conflict', 'the staff member is revoked: create a new one');
  return { staff: await getStaff(deps, clientId, id), signIn };
}
