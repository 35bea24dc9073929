import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { CLUSTER_DATABASES, type ClusterDatabase, type ClusterDatabaseNames } from './temporal-cluster-config';

const run = promisify(execFile);

/** The sql tool's embedded schema of each database (the server module's schema/postgresql/v12/…, compiled in). */
const SCHEMAS: Record<keyof ClusterDatabaseNames, string> = {
  default: 'postgresql/v12/temporal',
  visibility: 'postgresql/v12/visibility',
};

/** Runs the Temporal SQL tool (`temporal-sql-tool`) against one database; its output is in the error when it fails. */
async function sqlTool(binary: string, db: ClusterDatabase, database: string, args: string[]): Promise<void> {
  const common = ['--plugin', 'postgres12', '--ep', db.host, '-p', String(db.port), '-u', db.user, '--pw', db.password, '--db', database];
  try {
    await run(binary, [...common, ...args], { maxBuffer: 10 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`temporal sql tool ${args[0]} on ${database} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, {
      cause: err,
    });
  }
}

/**
 * The cluster's role and its two databases in a Postgres where `admin` may create them, each with
 * its schema at the server's version: `setup-schema -v 0.0` (the version table) once, then
 * `update-schema` to the latest version, which applies only what is missing and so runs at every
 * start (a newer server binary brings its schema changes this way).
 */
export async function prepareClusterDatabases(
  sqlBinary: string,
  admin: ClusterDatabase,
  cluster: ClusterDatabase,
  names: ClusterDatabaseNames = CLUSTER_DATABASES,
): Promise<void> {
  const client = new pg.Client({ host: admin.host, port: admin.port, user: admin.user, password: admin.password, database: 'postgres' });
  await client.connect();
  const fresh: string[] = [];
  try {
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [cluster.user]);
    const password = client.escapeLiteral(cluster.password);
    const name = client.escapeIdentifier(cluster.user);
    await client.query(role.rowCount ? `ALTER ROLE ${name} LOGIN PASSWORD ${password}` : `CREATE ROLE ${name} LOGIN PASSWORD ${password}`);
    for (const database of Object.values(names)) {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (!exists.rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)} OWNER ${name}`);
      if (!(await hasVersionTable(admin, database))) fresh.push(database);
    }
  } finally {
    await client.end();
  }
  for (const [store, database] of Object.entries(names) as Array<[keyof ClusterDatabaseNames, string]>) {
    if (fresh.includes(database)) await sqlTool(sqlBinary, cluster, database, ['setup-schema', '-v', '0.0']);
    await sqlTool(sqlBinary, cluster, database, ['update-schema', '-s', SCHEMAS[store]]);
  }
}

/** Whether setup-schema has run on this database (running it again would reset the recorded version to 0.0). */
async function hasVersionTable(admin: ClusterDatabase, database: string): Promise<boolean> {
  const client = new pg.Client({ host: admin.host, port: admin.port, user: admin.user, password: admin.password, database });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string | null }>("SELECT to_regclass('schema_version')::text AS t");
    return rows[0]?.t !== null;
  } finally {
    await client.end();
  }
}
