import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { cancelVoucher, redeemVoucher } from '../../../store/vouchers';
import type { ServiceDeps } from '../../../services/deps';
import { invalidField, notFound } from '../../errors';
import { findVoucher, listVouchers, offerVisible, toVoucher, type VoucherScope } from '../../../store/vouchers-queries';
import { IdParam } from '../../../schemas/common';
import { VoucherList, VoucherListQuery, VoucherResponse, VoucherUpdateBody } from '../../../schemas/voucher';
import { refusalFailure } from '../../../domain/failures';

const OfferParams = z.object({ id: IdParam });
const OfferVoucherParams = z.object({ id: IdParam, voucher_id: IdParam });
const AdvertiserParams = z.object({ advertiser_id: IdParam, ref: IdParam });

/**
 * Voucher endpoints of spec §4.5 on both interfaces. The submission client sees the vouchers of
 * its own offers (the advertiser redeems them); the distribution client sees those it sold.
 * Redeem: `{voucher:{status:"redeemed"}}`; cancel (offer path only): `{voucher:{status:"cancelled"}}`.
 */
export const voucherRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps; iface: VoucherScope['iface'] }> = async (app, { deps, iface }) => {
  const { db } = deps;
  const scope = (clientId: string): VoucherScope => ({ iface, clientId });

  async function apply(voucherId: string, status: 'redeemed' | 'cancelled') {
    const result = status === 'redeemed' ? await redeemVoucher(db, voucherId) : await cancelVoucher(db, voucherId);
    if ('ok' in result) throw refusalFailure(result);
    return { status: 'OK' as const, voucher: toVoucher(result) };
  }

  app.get('/vouchers', { schema: { querystring: VoucherListQuery, response: { 200: VoucherList } } }, async (request) => {
    const { rows, total } = await listVouchers(db, scope(request.client.id), request.query);
    return { status: 'OK' as const, vouchers: rows, page: request.query.page, per_page: request.query.per_page, total };
  });

  app.get(
    '/offers/:id/vouchers',
    { schema: { params: OfferParams, querystring: VoucherListQuery, response: { 200: VoucherList } } },
    async (request) => {
      if (!(await offerVisible(db, scope(request.client.id), request.params.id))) throw notFound('offer');
      const { rows, total } = await listVouchers(db, scope(request.client.id), { ...request.query, offerId: request.params.id });
      return { status: 'OK' as const, vouchers: rows, page: request.query.page, per_page: request.query.per_page, total };
    },
  );

  const byOffer = async (clientId: string, p: z.infer<typeof OfferVoucherParams>) =>
    (await findVoucher(db, scope(clientId), { offerId: p.id, idOrCode: p.voucher_id })) ?? Promise.reject(notFound('voucher'));
  const byAdvertiser = async (clientId: string, p: z.infer<typeof AdvertiserParams>) =>
    (await findVoucher(db, scope(clientId), { advertiserId: p.advertiser_id, idOrCode: p.ref })) ?? Promise.reject(notFound('voucher'));

  app.get(
    '/offers/:id/vouchers/:voucher_id',
    { schema: { params: OfferVoucherParams, response: { 200: VoucherResponse } } },
    async (request) => ({
      status: 'OK' as const,
      voucher: toVoucher(await byOffer(request.client.id, request.params)),
    }),
  );

  app.put(
    '/offers/:id/vouchers/:voucher_id',
    { schema: { params: OfferVoucherParams, body: VoucherUpdateBody, response: { 200: VoucherResponse } } },
    async (request) => {
      const v = await byOffer(request.client.id, request.params);
      return apply(v.id, request.body.voucher.status);
    },
  );

  app.get(
    '/advertisers/:advertiser_id/vouchers/:ref',
    { schema: { params: AdvertiserParams, response: { 200: VoucherResponse } } },
    async (request) => ({
      status: 'OK' as const,
      voucher: toVoucher(await byAdvertiser(request.client.id, request.params)),
    }),
  );

  app.put(
    '/advertisers/:advertiser_id/vouchers/:ref',
    { schema: { params: AdvertiserParams, body: VoucherUpdateBody, response: { 200: VoucherResponse } } },
    async (request) => {
      if (request.body.voucher.status !== 'redeemed')
        throw invalidField('status', 'vouchers are cancelled through PUT /offers/:offer_id/vouchers/:id; this path only redeems');
      const v = await byAdvertiser(request.client.id, request.params);
      return apply(v.id, 'redeemed');
    },
  );

  if (iface === 'distribution') {
    // The customer's printable voucher; print_url points here.
    app.get('/vouchers/:id/print', { schema: { params: OfferParams } }, async (request, reply) => {
      const v = await findVoucher(db, scope(request.client.id), { idOrCode: request.params.id, byId: true });
      if (!v) throw notFound('voucher');
      const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const html = `<!doctype html><meta charset="utf-8"><title>Voucher</title><h1>${esc(v.title)}</h1><p>For ${esc(v.customer_name)}</p><p style="font:2em monospace">${esc(v.redemption_code)}</p><p>Barcode (Code 128): ${esc(v.barcode)}</p><p>Valid until ${esc(v.expiration_date ?? 'no expiry')} · ${esc(v.status)}</p>`;
      return reply.type('text/html; charset=utf-8').send(html);
    });
  }
};
