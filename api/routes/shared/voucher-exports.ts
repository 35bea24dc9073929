import { okReply } from '../../../schemas/envelope';
import { createVoucherExport, getVoucherExport, voucherExportView } from '../../../services/voucher-exports';
import { IdParams } from '../../../schemas/common';
import { VoucherExportResponse } from '../../../schemas/voucher-export';
import { siteBaseUrl } from '../../urls';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Vouchers');

/**
 * Voucher exports on both interfaces (docs/bulk-offers-and-exports.md): an advertiser exports every
 * voucher and code of its offer, a publisher the vouchers it sold of one. 202 at once; the export
 * is read until completed, then its signed download_url gives the CSV.
 */
export const voucherExportRoutes: RoutePlugin<{ iface: 'submission' | 'distribution' }> = async (app, { deps, iface }) => {
  app.post(
    '/offers/:id/voucher_exports',
    op('createVoucherExport', "Export an offer's vouchers as CSV", { params: IdParams, response: { 202: VoucherExportResponse } }),
    async (request, reply) => {
      const row = await createVoucherExport(deps, { iface, clientId: request.client.id }, request.params.id);
      return reply.code(202).send(okReply('voucher_export', voucherExportView(deps, row, siteBaseUrl(request))));
    },
  );

  app.get(
    '/voucher_exports/:id',
    op('getVoucherExport', 'Get a voucher export', { params: IdParams, response: { 200: VoucherExportResponse } }),
    async (request) => {
      const row = await getVoucherExport(deps, request.client.id, request.params.id);
      return okReply('voucher_export', voucherExportView(deps, row, siteBaseUrl(request)));
    },
  );
};
