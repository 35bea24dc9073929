import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { UPLOAD_PART_BYTES } from '../platform/object-upload';
import { finishExport, recordExportProgress } from '../store/voucher-exports';
import { readExportPage, VOUCHER_EXPORT_HEADER } from '../store/voucher-export-pages';
import type { VoucherExportPartInput, VoucherExportPartResult } from '../workflows/voucher-export-messages';

/*
 * The voucher export's steps (workflows/voucher-export.ts). Each is idempotent: a part is read from
 * the same cursor and uploaded under the same part number again (S3 keeps the last), progress and
 * the end are set, not added to.
 */

/** Rows read per query: big enough that 1,000,000 rows take 100 round trips, small enough to stream. */
const PAGE_ROWS = 10_000;

export function createVoucherExportActivities(deps: Pick<ActivityDeps, 'db' | 'store'>) {
  const { client, bucket } = deps.store;
  return {
    /** Opens the multipart upload of the export's file. A retry opens another; an abandoned one is never completed (invisible). */
    async startVoucherExportUpload(a: { exportId: string; objectKey: string }): Promise<string> {
      await recordExportProgress(deps.db, a.exportId, 0);
      return client.initiateNewMultipartUpload(bucket, a.objectKey, { 'Content-Type': 'text/csv; charset=utf-8' });
    },

    /**
     * Reads pages from the cursor until a part's worth (5 MiB, the S3 minimum but for the last) or
     * the end, uploads it as part `part`, and records the rows written. Heartbeats each page.
     */
    async writeVoucherExportPart(a: VoucherExportPartInput): Promise<VoucherExportPartResult> {
      const scope = { offerId: a.offerId, distributionClientId: a.distributionClientId };
      const chunks: Buffer[] = [];
      let bytes = 0;
      let rows = 0;
      let cursor = a.cursor;
      if (a.part === 1) chunks.push(Buffer.from(VOUCHER_EXPORT_HEADER));
      while (cursor.phase !== 'done' && bytes < UPLOAD_PART_BYTES) {
        const page = await readExportPage(deps.db, scope, cursor, PAGE_ROWS);
        const chunk = Buffer.from(page.csv);
        chunks.push(chunk);
        bytes += chunk.length;
        rows += page.rows;
        cursor = page.next;
        Context.current().heartbeat({ rows: a.rowsBefore + rows });
      }
      const body = Buffer.concat(chunks);
      const { etag } = await client.uploadPart(
        {
          bucketName: bucket,
          objectName: a.objectKey,
          uploadID: a.uploadId,
          partNumber: a.part,
          headers: { 'Content-Length': body.length },
        },
        body,
      );
      await recordExportProgress(deps.db, a.exportId, a.rowsBefore + rows);
      return { etag, next: cursor, rows: a.rowsBefore + rows };
    },

    /** Completes the upload (the file appears whole, at once) and marks the export completed. */
    async completeVoucherExport(a: {
      exportId: string;
      objectKey: string;
      uploadId: string;
      parts: { part: number; etag: string }[];
      rows: number;
    }): Promise<void> {
      try {
        await client.completeMultipartUpload(bucket, a.objectKey, a.uploadId, a.parts);
      } catch (err) {
        // A retry after a completion whose answer was lost: the upload is gone and the file is there.
        await client.statObject(bucket, a.objectKey).catch(() => Promise.reject(err));
      }
      await finishExport(deps.db, a.exportId, { rows: a.rows });
    },

    /** Marks the export failed and drops its unfinished upload. */
    async failVoucherExport(a: { exportId: string; objectKey: string; uploadId?: string; error: string }): Promise<void> {
      if (a.uploadId) await client.abortMultipartUpload(bucket, a.objectKey, a.uploadId).catch(() => undefined);
      await finishExport(deps.db, a.exportId, { error: a.error });
    },
  };
}
