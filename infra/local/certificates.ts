import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of the PEM files `makeCertificates` wrote. */
export interface Certificates {
  /** A certificate authority of our own: what a client or server trusts. */
  caCert: string;
  caKey: string;
  /**
   * A server certificate signed by the CA, valid for every `serverNames` entry (DNS or IP SANs); also
   * usable as a client certificate (clientAuth), as a cluster's services present it to one another.
   */
  serverCert: string;
  serverKey: string;
  /** A client certificate signed by the CA (extendedKeyUsage clientAuth), for mTLS. */
  clientCert: string;
  clientKey: string;
}

export interface CertificateOptions {
  /** Host names and IP addresses the server certificate is valid for; default `localhost` and `127.0.0.1`. */
  serverNames?: string[];
  /** Common name of the client certificate; default `offer-marketplace-test-client`. */
  clientName?: string;
  /** File name prefix, so that two sets (e.g. a wrong CA) can share one folder; default none. */
  prefix?: string;
  /** How long the certificates are valid; default 2 days (a test run), longer for a cluster a person keeps. */
  days?: number;
}

const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+:[0-9a-f:]*)$/i;

async function openssl(args: string[], cwd: string): Promise<void> {
  await run('openssl', args, { cwd });
}

/**
 * An EC P-256 key in `dir/<name>.key`, PKCS#8 (what Postgres, Node and Temporal's Go and Rust TLS
 * stacks all read), mode 0600 (Postgres refuses a key file readable by others).
 */
async function newKey(dir: string, name: string): Promise<void> {
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key.ec`], dir);
  await openssl(['pkcs8', '-topk8', '-nocrypt', '-in', `${name}.key.ec`, '-out', `${name}.key`], dir);
  await fs.rm(path.join(dir, `${name}.key.ec`));
  await fs.chmod(path.join(dir, `${name}.key`), 0o600);
}

/** The paths of the PEM files `makeCertificates` writes into `dir`. */
export function certificatesIn(dir: string, prefix = ''): Certificates {
  const [caCert, caKey, serverCert, serverKey, clientCert, clientKey] = [
    'ca.crt',
    'ca.key',
    'server.crt',
    'server.key',
    'client.crt',
    'client.key',
  ].map((f) => path.join(dir, `${prefix}${f}`));
  return { caCert, caKey, serverCert, serverKey, clientCert, clientKey };
}

/** An EC P-256 key and a certificate signed by the CA, with the extensions given (an OpenSSL extension file's lines). */
async function signed(
  dir: string,
  name: string,
  subject: string,
  ext: string[],
  ca: { cert: string; key: string; days: number },
): Promise<void> {
  const extFile = path.join(dir, `${name}.ext`);
  await fs.writeFile(extFile, `${ext.join('\n')}\n`);
  await newKey(dir, name);
  await openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  await openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', String(ca.days), '-sha256'].concat(
      ['-extfile', extFile, '-out', `${name}.crt`],
    ),
    dir,
  );
  await Promise.all([fs.rm(path.join(dir, `${name}.csr`)), fs.rm(extFile)]);
}

/**
 * A certificate authority, a server certificate and a client certificate made with the `openssl`
 * CLI into `dir` (created when missing): for tests of TLS (Postgres, S3) and mTLS (Temporal), and the
 * local Temporal cluster of `npm run stack:cluster`. Valid for `days` (two by default); EC P-256 keys in PKCS#8 PEM, mode 0600.
 */
export async function makeCertificates(dir: string, opts: CertificateOptions = {}): Promise<Certificates> {
  await fs.mkdir(dir, { recursive: true });
  const p = opts.prefix ?? '';
  const names = opts.serverNames ?? ['localhost', '127.0.0.1'];
  const days = opts.days ?? 2;
  const files = certificatesIn(dir, p);
  await newKey(dir, `${p}ca`);
  await openssl(
    ['req', '-x509', '-new', '-key', `${p}ca.key`, '-sha256', '-days', String(days), '-subj', `/CN=offer-marketplace CA ${p}`.trim()]
      .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'])
      .concat(['-out', `${p}ca.crt`]),
    dir,
  );
  const ca = { cert: files.caCert, key: files.caKey, days };
  const sans = names.map((n) => (IP.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  await signed(
    dir,
    `${p}server`,
    `/CN=${names[0]}`,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,clientAuth',
      `subjectAltName=${sans}`,
    ],
    ca,
  );
  await signed(
    dir,
    `${p}client`,
    `/CN=${opts.clientName ?? 'offer-marketplace-test-client'}`,
    ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=clientAuth'],
    ca,
  );
  return files;
}
