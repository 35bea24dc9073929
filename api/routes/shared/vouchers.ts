import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceDeps } from '../../../services/deps';
import { changeVoucherStatus, getVoucher, listVouchers, printableVoucher, type VoucherScope } from '../../../services/vouchers';
import { invalidField } from '../../errors';
import { IdParam } from '../../../schemas/common';
import { listReply } from '../../../schemas/envelope';
import { VoucherList, VoucherListQuery, VoucherResponse, VoucherUpdateBody } from '../../../schemas/voucher';
import { escapeHtml } from '../ops/html';

const OfferParams = z.object({ id: IdParam });
const OfferVoucherParams = z.object({ id: IdParam, voucher_id: IdParam });
const AdvertiserParams = z.object({ advertiser_id: IdParam, ref: IdParam });

const byOffer = (p: z.infer<typeof OfferVoucherParams>) => ({ offerId: p.id, voucherId: p.voucher_id });
const byAdvertiser = (p: z.infer<typeof AdvertiserParams>) => ({ advertiserId: p.advertiser_id, ref: p.ref });

/**
 * Voucher endpoints of spec §4.5 on both interfaces. The submission client sees the vouchers of
 * its own offers (the advertiser redeems them); the distribution client sees those it sold.
 * Redeem: `{voucher:{status:"redeemed"}}`; cancel (offer path only): `{voucher:{status:"cancelled"}}`.
 */
export const voucherRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps; iface: VoucherScope['iface'] }> = async (app, { deps, iface }) => {
  const scope = (clientId: string): VoucherScope => ({ iface, clientId });

  app.get('/vouchers', { schema: { querystring: VoucherListQuery, response: { 200: VoucherList } } }, async (request) =>
    listReply('vouchers', await listVouchers(deps, scope(request.client.id), request.query), request.query),
  );

  app.get(
    '/offers/:id/vouchers',
    { schema: { params: OfferParams, querystring: VoucherListQuery, response: { 200: VoucherList } } },
    async (request) =>
      listReply('vouchers', await listVouchers(deps, scope(request.client.id), request.query, request.params.id), request.query),
  );

  app.get(
    '/offers/:id/vouchers/:voucher_id',
    { schema: { params: OfferVoucherParams, response: { 200: VoucherResponse } } },
    async (request) => ({
      status: 'OK' as const,
      voucher: await getVoucher(deps, scope(request.client.id), byOffer(request.params)),
    }),
  );

  app.put(
    '/offers/:id/vouchers/:voucher_id',
    { schema: { params: OfferVoucherParams, body: VoucherUpdateBody, response: { 200: VoucherResponse } } },
    async (request) => ({
      status: 'OK' as const,
      voucher: await changeVoucherStatus(deps, scope(request.client.id), byOffer(request.params), request.body.voucher.status),
    }),
  );

  app.get(
    '/advertisers/:advertiser_id/vouchers/:ref',
    { schema: { params: AdvertiserParams, response: { 200: VoucherResponse } } },
    async (request) => ({
      status: 'OK' as const,
      voucher: await getVoucher(deps, scope(request.client.id), byAdvertiser(request.params)),
    }),
  );

  app.put(
    '/advertisers/:advertiser_id/vouchers/:ref',
    { schema: { params: AdvertiserParams, body: VoucherUpdateBody, response: { 200: VoucherResponse } } },
    async (request) => {
      if (request.body.voucher.status !== 'redeemed')
        throw invalidField('status', 'vouchers are cancelled through PUT /offers/:offer_id/vouchers/:id; this path only redeems');
      return {
        status: 'OK' as const,
        voucher: await changeVoucherStatus(deps, scope(request.client.id), byAdvertiser(request.params), 'redeemed'),
      };
    },
  );

  if (iface === 'distribution') {
    // The customer's printable voucher; print_url points here.
    app.get('/vouchers/:id/print', { schema: { params: OfferParams } }, async (request, reply) => {
      const v = await printableVoucher(deps, scope(request.client.id), request.params.id);
      const html = [
        `<!doctype html><meta charset="utf-8"><title>Voucher</title><h1>${escapeHtml(v.title)}</h1>`,
        `<p>For ${escapeHtml(v.customer_name)}</p><p style="font:2em monospace">${escapeHtml(v.redemption_code)}</p>`,
        `<p>Barcode (Code 128): ${escapeHtml(v.barcode)}</p>`,
        `<p>Valid until ${escapeHtml(v.expiration_date ?? 'no expiry')} · ${escapeHtml(v.status)}</p>`,
      ].join('');
      return reply.type('text/html; charset=utf-8').send(html);
    });
  }
};
