import { execFile } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { migrateToLatest } from '../../../store/migrate';
import { claimEnvironment, EnvironmentMismatchError } from '../../../services/deployment';
import { createDb } from '../../../store/db';
import { admin } from '../../setup/admin';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** `npm start`'s entry point against the suite's stack (no API, no worker): its exit code and stderr. */
function start(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'main', 'start.ts')],
      { cwd: ROOT, env: { ...env, RUN_API: 'false', RUN_WORKER: 'false', LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 120_000 },
      (err, _stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('one database serves one environment', () => {
  it('records the environment at the first start and refuses the other one, naming both', async () => {
    // A database of its own, so the suite's shared one keeps its environment.
    const main = createDb(process.env.DATABASE_URL!, 1);
    const name = `env_guard_${process.pid}_${Date.now()}`;
    await sql.raw(`create database ${name}`).execute(main);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const db = createDb(url.toString(), 1);
    try {
      await migrateToLatest(db);
      await claimEnvironment({ db }, 'sandbox');
      await claimEnvironment({ db }, 'sandbox'); // a restart as the same environment
      const refused = claimEnvironment({ db }, 'production');
      await expect(refused).rejects.toThrow(EnvironmentMismatchError);
      await expect(refused).rejects.toThrow(/serves the sandbox environment .*refusing to run as production/);
    } finally {
      await db.destroy();
      await sql.raw(`drop database if exists ${name}`).execute(main);
      await main.destroy();
    }
  });

  it('npm start as production on the suite’s sandbox database exits 1 with that message', async () => {
    const res = await start({ ...process.env, SERVICE_ENVIRONMENT: 'production' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/this database serves the sandbox environment .*refusing to run as production/);
  }, 180_000);

  it('keys create refuses a key for the environment the deployment does not serve', async () => {
    const other = await admin(['keys', 'create', '--interface', 'submission', '--environment', 'production']);
    expect(other.code).toBe(1);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(/this deployment serves sandbox; a production key would be refused/);
    const pointedWrong = await admin(['keys', 'create', '--interface', 'submission'], {
      ...process.env,
      SERVICE_ENVIRONMENT: 'production',
    });
    expect(pointedWrong.code).toBe(1);
    expect(pointedWrong.stderr).toMatch(/serves the sandbox environment; refusing to run as production/);
    const same = await admin(['keys', 'create', '--interface', 'submission', '--environment', 'sandbox']);
    expect(same.code).toBe(0);
  });
});
