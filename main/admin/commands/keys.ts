import { Command, Option } from 'commander';
import type { ApiInterface, ServiceEnvironment } from '../../../domain/environment';
import { createApiKey, revokeApiKey } from '../../../services/api-clients';
import { servedEnvironment } from '../../../services/deployment';
import { demoKey } from '../../../services/demo';
import { AdminError, output, type AdminContext } from '../context';

/** `keys …`: operators create and revoke clients' API keys. */
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
  return keys;
}
