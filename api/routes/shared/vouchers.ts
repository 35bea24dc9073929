import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServiceDeps } from '../../../services/deps';
import {
  changeVoucherStatus,
  customerVoucher,
  getVoucher,
  listVouchers,
  printableVoucher,
  rotatePrintUrl,
  type VoucherRef,
  type VoucherScope,
} from '../../../services/vouchers';
import { invalidField } from '../../errors';
import { redeemRequestOf } from '../../../domain/redemptions';
import { IdParam, IdParams } from '../../../schemas/common';
import { listReply, okReply } from '../../../schemas/envelope';
import { VoucherList, VoucherListQuery, VoucherResponse, VoucherUpdateBody } from '../../../schemas/voucher';
import { siteBaseUrl } from '../../urls';
import { customerVoucherPage, sendVoucherPage } from '../customer/voucher-page';
import { operations, type RouteApp, type RoutePlugin } from '../operation';
import { textResponse } from './file-responses';

const OfferVoucherParams = z.object({ id: IdParam, voucher_id: IdParam });
const AdvertiserParams = z.object({ advertiser_id: IdParam, ref: IdParam });

const byOffer = (p: z.infer<typeof OfferVoucherParams>) => ({ offerId: p.id, voucherId: p.voucher_id });
const byAdvertiser = (p: z.infer<typeof AdvertiserParams>) => ({ advertiserId: p.advertiser_id, ref: p.ref });

const op = operations('Vouchers');

type Scope = (clientId: string) => VoucherScope;

/** Reading vouchers: lists, one by offer, one by the advertiser's reference. */
function readRoutes(app: RouteApp, deps: ServiceDeps, scope: Scope) {
  app.get(
    '/vouchers',
    op('listVouchers', 'List vouchers', { querystring: VoucherListQuery, response: { 200: VoucherList } }),
    async (request) =>
      listReply('vouchers', await listVouchers(deps, scope(request.client.id), request.query, siteBaseUrl(request)), request.query),
  );

  app.get(
    '/offers/:id/vouchers',
    op('listOfferVouchers', "List an offer's vouchers", {
      params: IdParams,
      querystring: VoucherListQuery,
      response: { 200: VoucherList },
    }),
    async (request) =>
      listReply(
        'vouchers',
        await listVouchers(deps, scope(request.client.id), request.query, siteBaseUrl(request), request.params.id),
        request.query,
      ),
  );

  app.get(
    '/offers/:id/vouchers/:voucher_id',
    op('getVoucher', 'Get one voucher', { params: OfferVoucherParams, response: { 200: VoucherResponse } }),
    async (request) => okReply('voucher', await getVoucher(deps, scope(request.client.id), byOffer(request.params), siteBaseUrl(request))),
  );

  app.get(
    '/advertisers/:advertiser_id/vouchers/:ref',
    op('getAdvertiserVoucher', "Get a voucher by the advertiser's reference", {
      params: AdvertiserParams,
      response: { 200: VoucherResponse },
    }),
    async (request) =>
      okReply('voucher', await getVoucher(deps, scope(request.client.id), byAdvertiser(request.params), siteBaseUrl(request))),
  );
}

/** Redeeming (both paths) and cancelling (offer path only). */
function changeRoutes(app: RouteApp, deps: ServiceDeps, scope: Scope) {
  /**
   * The body's status for the voucher, with what a redeem asks beyond it: part of a gift card's balance,
   * the retry key, and the whole body a retry must repeat. The key (checked by api/plugins/idempotency.ts,
   * which answers a retry within a day) also names the redemption itself, so that a retry after that still redeems once.
   */
  const change = async (request: FastifyRequest & { body: z.infer<typeof VoucherUpdateBody> }, ref: VoucherRef) =>
    okReply(
      'voucher',
      await changeVoucherStatus(deps, scope(request.client.id), ref, request.body.voucher.status, siteBaseUrl(request), {
        amount: request.body.voucher.amount,
        request: redeemRequestOf(request.body),
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      }),
    );

  app.put(
    '/offers/:id/vouchers/:voucher_id',
    op('updateVoucher', 'Redeem or cancel a voucher', {
      params: OfferVoucherParams,
      body: VoucherUpdateBody,
      response: { 200: VoucherResponse },
    }),
    (request) => change(request, byOffer(request.params)),
  );

  app.put(
    '/advertisers/:advertiser_id/vouchers/:ref',
    op('redeemAdvertiserVoucher', "Redeem a voucher by the advertiser's reference", {
      params: AdvertiserParams,
      body: VoucherUpdateBody,
      response: { 200: VoucherResponse },
    }),
    async (request) => {
      if (request.body.voucher.status !== 'redeemed')
        throw invalidField('status', 'vouchers are cancelled through PUT /offers/:offer_id/vouchers/:id; this path only redeems');
      return change(request, byAdvertiser(request.params));
    },
  );
}

/** The distributor's copy of the customer's page, and a new print_url. */
function printRoutes(app: RouteApp, deps: ServiceDeps, scope: Scope) {
  // The same page as print_url, for the distributor (with its key), e.g. to check what its customer sees.
  app.get(
    '/vouchers/:id/print',
    op('printVoucher', "The customer's voucher page (HTML), as print_url shows it", {
      params: IdParams,
      response: { 200: textResponse('The voucher page: one self-contained HTML document', 'text/html') },
    }),
    async (request, reply) => {
      const v = await printableVoucher(deps, scope(request.client.id), request.params.id);
      return sendVoucherPage(reply, customerVoucherPage(await customerVoucher(deps, v.page_token)));
    },
  );

  // A new print_url; the old address stops working (a leaked link, a voucher passed to someone else).
  app.post(
    '/vouchers/:id/print_url',
    op('rotateVoucherPrintUrl', "Replace a voucher's print_url", { params: IdParams, response: { 200: VoucherResponse } }),
    async (request) => okReply('voucher', await rotatePrintUrl(deps, scope(request.client.id), request.params.id, siteBaseUrl(request))),
  );
}

/**
 * Voucher endpoints of spec §4.5 on both interfaces. The submission client sees the vouchers of
 * its own offers (the advertiser redeems them); the distribution client sees those it sold.
 * Redeem: `{voucher:{status:"redeemed", amount?}}` (amount: part of a gift card's balance), with an
 * optional Idempotency-Key header; cancel (offer path only): `{voucher:{status:"cancelled"}}`.
 */
export const voucherRoutes: RoutePlugin<{ iface: VoucherScope['iface'] }> = async (app, { deps, iface }) => {
  const scope = (clientId: string): VoucherScope => ({ iface, clientId });
  readRoutes(app, deps, scope);
  changeRoutes(app, deps, scope);
  if (iface === 'distribution') printRoutes(app, deps, scope);
};
