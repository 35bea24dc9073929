import { Command, Option } from 'commander';
import type { ApiInterface, ServiceEnvironment } from '../../../domain/environment';
import { createApiKey, findLiveClient, revokeApiKey } from '../../../services/api-clients';
import { listApiKeys, rollApiKeyOf } from '../../../services/api-key-rolling';
import { servedEnvironment } from '../../../services/deployment';
import { demoKey } from '../../../services/demo';
import { AdminError, output, type AdminContext } from '../context';

/** `keys …`: operators create, roll, list and revoke clients' API keys. */
export function keysCommand(ctx: () => AdminContext): Command {
  const keys = new Command('keys').description('API keys of submission and distribution clients');
  keys
    .command('create')
    .description('create a client and print its new API key (shown once; stored hashed)')
    .addOption(
      new Option('--interface <interface>', 'which interface the key opens').choices(['submission', 'distribution']).makeOptionMandatory(),
    )
    .addOption(
      new Option('--environment <environment>', 'environment the key belongs to: only the one this deployment serves').choices([
        'sandbox',
        'production',
      ]),
    )
    .option('--name <name>', 'a name for the client (company or app)')
    .option('--reservations', 'allow this distribution client to make reservations', false)
    .option('--json', 'print {key, client_id} as JSON instead of the key alone', false)
    .action(
      async (o: { interface: ApiInterface; environment?: ServiceEnvironment; name?: string; reservations: boolean; json: boolean }) => {
        const c = ctx();
        // A key of the environment this deployment does not serve would be refused by every request.
        const served = await servedEnvironment(c, c.config.SERVICE_ENVIRONMENT);
        if (o.environment && o.environment !== served)
          throw new AdminError(
            `this deployment serves ${served}; a ${o.environment} key would be refused by every request: create it with the ${o.environment} deployment's configuration`,
          );
        const { key, clientId } = await createApiKey(c, {
          iface: o.interface,
          environment: served,
          name: o.name,
          reservations: o.reservations,
        });
        output(o.json ? { key, client_id: clientId } : key);
      },
    );
  keys
    .command('demo')
    .description("print the sandbox's shared demonstration key (distribution; search and read only), the same every time")
    .action(async () => output(await demoKey(ctx())));
  keys
    .command('revoke')
    .description('revoke an API key at once (by the key itself or its client id)')
    .argument('<key-or-client-id>')
    .action(async (ref: string) => {
      await revokeApiKey(ctx(), ref);
      output({ revoked: true });
    });
  keys
    .command('roll')
    .description('issue a new key for the client (printed once); the old key works until --expires-in, then is refused 401 api_key_expired')
    .argument('<key-or-client-id>')
    .option('--expires-in <duration>', 'how long the old key keeps working: now, or e.g. 90m, 24h, 7d (at most 7d)', '24h')
    .action(async (ref: string, o: { expiresIn: string }) => output(await rollApiKeyOf(ctx(), ref, durationSeconds(o.expiresIn))));
  keys
    .command('list')
    .description("a client's keys: the current one and those rolled away, with their expiry and last use (never the keys)")
    .argument('<key-or-client-id>')
    .action(async (ref: string) => {
      const client = await findLiveClient(ctx(), ref);
      if (!client) throw new AdminError('no live key or client matches');
      output({ client_id: client.id, api_keys: await listApiKeys(ctx(), client.id) });
    });
  return keys;
}

/** `now`, or a whole number of seconds, minutes, hours or days (`90m`, `24h`, `7d`), in seconds. */
function durationSeconds(text: string): number {
  if (text === 'now') return 0;
  const m = /^(\d{1,7})([smhd])$/.exec(text);
  if (!m) throw new AdminError(`--expires-in: "${text}" is not a duration: now, or a number with s, m, h or d (24h, 7d)`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'];
}
