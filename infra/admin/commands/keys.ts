import crypto from 'node:crypto';
import { Command, Option } from 'commander';
import { generateApiKey, hashApiKey, type ApiInterface, type ServiceEnvironment } from '../../../api/api-keys';
import { AdminError, output, type AdminContext } from '../context';

/** Creates an API client and returns its key, the only time the key is ever seen in clear. */
export async function createApiKey(
  ctx: Pick<AdminContext, 'db'>,
  opts: { iface: ApiInterface; environment: ServiceEnvironment; name?: string; reservations?: boolean },
): Promise<{ key: string; clientId: string }> {
  if (opts.reservations && opts.iface !== 'distribution') throw new AdminError('--reservations applies to distribution keys only');
  const key = generateApiKey(opts.environment, opts.iface);
  const clientId = `cli_${crypto.randomBytes(9).toString('base64url')}`;
  await ctx.db
    .insertInto('api_clients')
    .values({
      id: clientId,
      name: opts.name ?? `${opts.iface} client`,
      interface: opts.iface,
      environment: opts.environment,
      key_hash: hashApiKey(key),
      key_prefix: key.slice(0, 16),
      reservations_enabled: opts.reservations ?? false,
      revoked_at: null,
    })
    .execute();
  return { key, clientId };
}

export function keysCommand(ctx: () => AdminContext): Command {
  const keys = new Command('keys').description('API keys of submission and distribution clients');
  keys
    .command('create')
    .description('create a client and print its new API key (shown once; stored hashed)')
    .addOption(
      new Option('--interface <interface>', 'which interface the key opens').choices(['submission', 'distribution']).makeOptionMandatory(),
    )
    .addOption(
      new Option('--environment <environment>', "environment the key belongs to (default: this deployment's)").choices([
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
        const { key, clientId } = await createApiKey(c, {
          iface: o.interface,
          environment: o.environment ?? c.config.SERVICE_ENVIRONMENT,
          name: o.name,
          reservations: o.reservations,
        });
        output(o.json ? { key, client_id: clientId } : key);
      },
    );
  keys
    .command('revoke')
    .description('revoke an API key at once (by the key itself or its client id)')
    .argument('<key-or-client-id>')
    .action(async (ref: string) => {
      const c = ctx();
      const res = await c.db
        .updateTable('api_clients')
        .set({ revoked_at: new Date() })
        .where((eb) => eb.or([eb('id', '=', ref), eb('key_hash', '=', hashApiKey(ref))]))
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw new AdminError('no live key matches');
      output({ revoked: true });
    });
  return keys;
}
