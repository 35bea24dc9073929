import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// Below Linux's ephemeral range (32768–60999 by default), from which servers that bind port 0 —
// the Temporal dev server's HTTP and metrics ports, among others — take theirs: a port we hand
// out can then not be grabbed by one of them before our server binds it.
export const FREE_PORT_RANGE = { low: 20_000, high: 32_000 } as const;
const { low: LOW, high: HIGH } = FREE_PORT_RANGE;

/**
 * A port handed out is some seconds away from its server's bind (a Temporal cluster's services start
 * after its Postgres). Processes that hand out ports at the same time — test lanes side by side, an
 * `npm start` beside the suite — would otherwise both see it free: each port is reserved on this
 * machine for a while by a file of that name, made exclusively (`wx`).
 */
const RESERVATIONS = path.join(os.tmpdir(), `offer-marketplace-ports-${os.userInfo().uid}`);
const RESERVED_MS = 120_000;

/** Whether nothing listens on this loopback port right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Reserves `port` for this process unless another reserved it less than RESERVED_MS ago. */
function reserve(port: number): boolean {
  const file = path.join(RESERVATIONS, String(port));
  fs.mkdirSync(RESERVATIONS, { recursive: true, mode: 0o700 });
  try {
    if (Date.now() - fs.statSync(file).mtimeMs < RESERVED_MS) return false;
    fs.rmSync(file, { force: true }); // an old reservation: its server bound the port or never came
  } catch {
    // no reservation yet
  }
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false; // another process reserved it first
  }
}

/** A loopback TCP port nobody listens on right now, nor was handed out on this machine lately. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if ((await portIsFree(port)) && reserve(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}
