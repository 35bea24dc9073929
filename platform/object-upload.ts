import type { ObjectStore } from './object-store';

/** The smallest part S3 accepts (except the last); also our memory bound per upload. */
export const UPLOAD_PART_BYTES = 5 * 1024 * 1024;

export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
  }
}

export interface StreamUpload {
  key: string;
  maxBytes: number;
  /**
   * Called once with the first `headBytes` bytes (fewer if the stream is shorter), before anything
   * is sent to the store; returns the Content-Type to store, or throws to refuse the upload with
   * nothing stored.
   */
  inspect: (head: Buffer) => string;
  headBytes?: number;
}

/**
 * Streams `source` into the store holding at most about one part (5 MiB) in memory, whatever its
 * size. A stream that fits one part is a single PUT; a longer one is an S3 multipart upload, which
 * stays invisible until completed and is aborted on any failure (too large, refused by `inspect`,
 * client gone, store error). So either the whole object exists afterwards or nothing does.
 *
 * (minio's own `putObject(stream)` reads a stream of unknown length in parts of up to hundreds of
 * MiB and does not notice a source stream that fails, so it is not used for untrusted uploads.)
 */
export async function putStreamBounded(store: ObjectStore, source: AsyncIterable<Buffer>, u: StreamUpload): Promise<{ size: number }> {
  const headBytes = u.headBytes ?? 16;
  const { client, bucket } = store;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let contentType: string | undefined;
  let uploadId: string | undefined;
  const etags: { part: number; etag: string }[] = [];

  const inspect = () => {
    contentType = u.inspect(Buffer.concat(pending).subarray(0, headBytes));
  };
  const flushPart = async () => {
    uploadId ??= await client.initiateNewMultipartUpload(bucket, u.key, { 'Content-Type': contentType! });
    const part = etags.length + 1;
    const body = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const { etag } = await client.uploadPart(
      { bucketName: bucket, objectName: u.key, uploadID: uploadId, partNumber: part, headers: { 'Content-Length': body.length } },
      body,
    );
    etags.push({ part, etag });
  };

  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > u.maxBytes) throw new ObjectTooLargeError(u.maxBytes);
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (contentType === undefined && pendingBytes >= headBytes) inspect();
      if (pendingBytes >= UPLOAD_PART_BYTES) await flushPart();
    }
    if (contentType === undefined) inspect();
    if (!uploadId) {
      await client.putObject(bucket, u.key, Buffer.concat(pending, pendingBytes), pendingBytes, { 'Content-Type': contentType! });
      return { size: total };
    }
    if (pendingBytes > 0) await flushPart();
    await client.completeMultipartUpload(bucket, u.key, uploadId, etags);
    return { size: total };
  } catch (err) {
    if (uploadId) await client.abortMultipartUpload(bucket, u.key, uploadId).catch(() => undefined);
    throw err;
  }
}
