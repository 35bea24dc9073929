import type { FastifyRequest } from 'fastify';
import { okReply } from '../../../schemas/envelope';
import { z } from 'zod';
import { rollbackRedemption, type VoucherRef } from '../../../services/vouchers';
import { IdParam } from '../../../schemas/common';
import { VoucherResponse } from '../../../schemas/voucher';
import { siteBaseUrl } from '../../urls';
import { operations, type RoutePlugin } from '../operation';

const OfferParams = z.object({ id: IdParam, voucher_id: IdParam, redemption_id: IdParam });
const AdvertiserParams = z.object({ advertiser_id: IdParam, ref: IdParam, redemption_id: IdParam });

const op = operations('Vouchers');

/**
 * Redemption rollback (docs/vouchers.md#redemptions), on the submission interface only:
 * the advertiser undoes its till's mistake within REDEMPTION_ROLLBACK_HOURS, on the same two paths
 * as redeeming (by offer and voucher id, or by advertiser and the voucher's id, code or barcode).
 * The answer is the voucher, as a redeem answers it.
 */
export const redemptionRoutes: RoutePlugin = async (app, { deps }) => {
  /** Both paths answer alike once the voucher is named. */
  const rollback = async (request: FastifyRequest, ref: VoucherRef, redemptionId: string) =>
    okReply(
      'voucher',
      await rollbackRedemption(deps, { iface: 'submission', clientId: request.client.id }, ref, redemptionId, siteBaseUrl(request)),
    );

  app.post(
    '/offers/:id/vouchers/:voucher_id/redemptions/:redemption_id/rollback',
    op('rollbackVoucherRedemption', 'Roll back a redemption of a voucher', { params: OfferParams, response: { 200: VoucherResponse } }),
    (request) => rollback(request, { offerId: request.params.id, voucherId: request.params.voucher_id }, request.params.redemption_id),
  );

  app.post(
    '/advertisers/:advertiser_id/vouchers/:ref/redemptions/:redemption_id/rollback',
    op('rollbackAdvertiserVoucherRedemption', "Roll back a redemption of a voucher found by the advertiser's reference", {
      params: AdvertiserParams,
      response: { 200: VoucherResponse },
    }),
    (request) => rollback(request, { advertiserId: request.params.advertiser_id, ref: request.params.ref }, request.params.redemption_id),
  );
};
