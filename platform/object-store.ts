import fs from 'node:fs';
import https from 'node:https';
import * as Minio from 'minio';

export interface S3Settings {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
  bucket: string;
  /** S3_CA_FILE: the CA of an https endpoint the system does not trust. */
  caFile?: string;
}

export interface ObjectStore {
  client: Minio.Client;
  bucket: string;
}

/** Any S3-compatible store by URL (MinIO, AWS S3, R2, …), through the `minio` client. */
export function createObjectStore(s: S3Settings): ObjectStore {
  const url = new URL(s.endpoint);
  const useSSL = url.protocol === 'https:';
  const client = new Minio.Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: s.accessKey,
    secretKey: s.secretKey,
    region: s.region,
    // Path-style addressing works with MinIO and every S3 clone; virtual hosts need DNS we may not have.
    pathStyle: true,
    // A private CA: trusted for this client only (the certificate and its host name still checked).
    ...(useSSL && s.caFile ? { transportAgent: new https.Agent({ ca: fs.readFileSync(s.caFile), keepAlive: true }) } : {}),
  });
  return { client, bucket: s.bucket };
}

export async function ensureBucket(store: ObjectStore, region: string): Promise<void> {
  if (!(await store.client.bucketExists(store.bucket))) {
    await store.client.makeBucket(store.bucket, region).catch(async (err: { code?: string }) => {
      // Two processes starting at once may race to create it.
      if (err.code !== 'BucketAlreadyOwnedByYou' && !(await store.client.bucketExists(store.bucket))) throw err;
    });
  }
}
