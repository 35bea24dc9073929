import net from 'node:net';

// Below Linux's ephemeral range (32768–60999 by default), from which servers that bind port 0 —
// the Temporal dev server's HTTP and metrics ports, among others — take theirs: a port we hand
// out can then not be grabbed by one of them before our server binds it.
const LOW = 20_000;
const HIGH = 32_000;

/** Whether nothing listens on this loopback port right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback TCP port nobody listens on right now (test stacks, the worker's metrics exporter). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}
