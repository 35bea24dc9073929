import { openVoucherExportFile, VOUCHER_EXPORT_DOWNLOAD_PATH } from '../../services/voucher-exports';
import { IdParams } from '../../schemas/common';
import { VoucherExportDownloadQuery } from '../../schemas/voucher-export';
import type { RoutePlugin } from './operation';

/**
 * A finished export's file (docs/bulk-offers-and-exports.md): no API key, the link's signature is
 * the key and its expiry is signed with it. Streamed from the object store, never held in memory.
 * Not in the OpenAPI documents: a client follows download_url as given.
 */
export const downloadRoutes: RoutePlugin = async (app, { deps }) => {
  app.get(
    `${VOUCHER_EXPORT_DOWNLOAD_PATH}/:id`,
    { schema: { hide: true, params: IdParams, querystring: VoucherExportDownloadQuery } },
    async (request, reply) => {
      const file = await openVoucherExportFile(deps, request.params.id, request.query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('cache-control', 'private, no-store')
        .send(file.stream);
    },
  );
};
