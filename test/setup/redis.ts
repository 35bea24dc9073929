import fs from 'node:fs';
import path from 'node:path';

/*
 * The shared rate-limit tests start a real `redis-server`: the one system package the suite needs
 * beside Node and Go. No npm package ships a Redis server without downloading it at install time,
 * and no Go module has a Redis server with the Lua scripting @fastify/rate-limit's Redis store
 * sends (EVALSHA); docs/decisions/0037-tests-redis.md.
 */
export const REDIS_SERVER = 'redis-server';

/** `redis-server` on PATH; throws naming the package to install when it is missing (never skipped). */
export function redisServer(env: NodeJS.ProcessEnv = process.env): string {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, REDIS_SERVER);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this folder
    }
  }
  throw new Error(
    `${REDIS_SERVER} is not on PATH. The shared rate-limit tests need a real Redis: install the ` +
      `\`redis-server\` package (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis), ` +
      `the one system package the suite needs beside Node and Go (README.md, "Test it").`,
  );
}

/** The arguments of a throwaway Redis on loopback: nothing saved to disk. */
export const redisArgs = (port: number): string[] => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
