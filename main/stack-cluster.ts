import fs from 'node:fs';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import { startClusterStack } from '../infra/local/cluster-stack';
import { loadConfigOrExit } from '../platform/config';
import { progress } from '../platform/logger';
import { KEYWORD_SEARCH_ATTRIBUTES } from '../worker/search-attributes';

/*
 * `npm run stack:cluster [-- --data-dir DIR]`: the servers of the production layout on this machine,
 * for a person who wants to try it (and the cluster lane, test/cluster/): embedded Postgres, the
 * local S3 server and a real Temporal cluster (frontend, history, matching and worker as four
 * processes, mTLS on; infra/local/temporal-cluster.ts), its files in DATA_DIR/cluster. It prints
 * the environment that points `npm start` (or an API and a worker process) at them, and writes it
 * to DIR/cluster.env; Ctrl-C stops everything.
 */

/** The namespace's retention: closed workflows' histories are kept three days. */
const RETENTION = '72h';
/** Certificates made on the first start, valid for a year (the cluster's data outlives a test run). */
const CERTIFICATE_DAYS = 365;

function dataDirArg(defaultDir: string): string {
  const i = process.argv.indexOf('--data-dir');
  return path.resolve(i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : defaultDir);
}

async function main() {
  const config = loadConfigOrExit();
  const dataDir = dataDirArg(path.join(config.DATA_DIR, 'cluster'));
  progress(`cluster data directory: ${dataDir}`);
  const stack = await startClusterStack({
    dataDir,
    namespace: config.TEMPORAL_NAMESPACE,
    retention: RETENTION,
    embeddedS3: config.EMBEDDED_S3,
    keywordSearchAttributes: KEYWORD_SEARCH_ATTRIBUTES,
    certificateDays: CERTIFICATE_DAYS,
  });
  closeWithGrace({ delay: 20_000 }, async ({ signal }) => {
    progress(`stopping${signal ? ` on ${signal}` : ''}…`);
    await stack.stop();
    fs.rmSync(path.join(dataDir, 'cluster.json'), { force: true });
    progress('stopped');
  });
  const envFile = path.join(dataDir, 'cluster.env');
  const lines = Object.entries(stack.env).map(([k, v]) => `${k}=${v}`);
  fs.writeFileSync(envFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  // Written last: whoever waits for the cluster (the cluster lane's global setup) reads it once it exists.
  fs.writeFileSync(path.join(dataDir, 'cluster.json'), JSON.stringify({ env: stack.env, pid: process.pid }), { mode: 0o600 });
  process.stdout.write(
    [
      `Temporal cluster on ${stack.cluster.address} (mTLS), Postgres and S3 ready. The environment for the service:`,
      ...lines.map((l) => `  ${l}`),
      `From another terminal: set -a; . ${envFile}; set +a; npm start`,
      `(or an API and a worker apart: RUN_WORKER=false npm start, and RUN_API=false npm start with DATA_DIR=.data-worker)`,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
