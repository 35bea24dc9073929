import fs from 'node:fs';

/*
 * The TLS files of Postgres and the S3 store, checked at start (loadConfig) so that a wrong path is
 * reported by its setting and not as a failed connection later: node-postgres reads DATABASE_URL's
 * `sslrootcert`, `sslcert` and `sslkey` (libpq's parameters) when it connects, the object store
 * reads S3_CA_FILE when it is made.
 */

const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** A PEM file we can read, or why not. */
function pemFault(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').includes('-----BEGIN ') ? undefined : `not a PEM file (${file})`;
  } catch (err) {
    return `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
}

/** Each fault of the backends' TLS settings, one line naming its setting. */
export function backendTlsFaults(settings: { DATABASE_URL?: string; S3_ENDPOINT?: string; S3_CA_FILE?: string }): string[] {
  const faults: string[] = [];
  if (settings.DATABASE_URL) {
    const params = new URL(settings.DATABASE_URL).searchParams;
    const mode = params.get('sslmode');
    if (mode !== null && !SSL_MODES.includes(mode)) faults.push(`DATABASE_URL: sslmode=${mode} is not one of ${SSL_MODES.join(', ')}`);
    for (const name of ['sslrootcert', 'sslcert', 'sslkey']) {
      const file = params.get(name);
      const fault = file === null ? undefined : pemFault(file);
      if (fault) faults.push(`DATABASE_URL: ${name}: ${fault}`);
    }
    if (Boolean(params.get('sslcert')) !== Boolean(params.get('sslkey')))
      faults.push('DATABASE_URL: sslcert and sslkey: give both, or neither');
  }
  if (settings.S3_CA_FILE) {
    if (!settings.S3_ENDPOINT?.startsWith('https://')) faults.push('S3_CA_FILE: only with an https:// S3_ENDPOINT');
    const fault = pemFault(settings.S3_CA_FILE);
    if (fault) faults.push(`S3_CA_FILE: ${fault}`);
  }
  return faults;
}
