import { Argument, Command, Option } from 'commander';
import { AdminError, output, type AdminContext } from '../context';

/** Turns reservations on or off for an existing distribution client; returns the new setting. */
export async function setReservations(ctx: Pick<AdminContext, 'db'>, clientId: string, enabled: boolean) {
  const row = await ctx.db
    .updateTable('api_clients')
    .set({ reservations_enabled: enabled })
    .where('id', '=', clientId)
    .where('interface', '=', 'distribution')
    .returning(['id', 'reservations_enabled'])
    .executeTakeFirst();
  if (!row) throw new AdminError(`no distribution client ${clientId}`);
  return { client_id: row.id, reservations_enabled: row.reservations_enabled };
}

/** The API clients (key holders) as operators see them: never their keys, only the prefix. */
export function clientsCommand(ctx: () => AdminContext): Command {
  const clients = new Command('clients').description('API clients (the holders of keys) and their settings');
  clients
    .command('list')
    .description('list clients with their interface, environment, key prefix and state')
    .addOption(new Option('--interface <interface>', 'only this interface').choices(['submission', 'distribution']))
    .option('--all', 'include revoked keys', false)
    .action(async (o: { interface?: 'submission' | 'distribution'; all: boolean }) => {
      let q = ctx()
        .db.selectFrom('api_clients')
        .select(['id', 'name', 'interface', 'environment', 'key_prefix', 'reservations_enabled', 'created_at', 'revoked_at'])
        .orderBy('created_at');
      if (o.interface) q = q.where('interface', '=', o.interface);
      if (!o.all) q = q.where('revoked_at', 'is', null);
      output(await q.execute());
    });
  clients
    .command('reservations')
    .description('allow (on) or stop (off) reservations for a distribution client; running reservations keep their hold')
    .argument('<client-id>')
    .addArgument(new Argument('<setting>').choices(['on', 'off']))
    .action(async (clientId: string, setting: 'on' | 'off') => {
      output(await setReservations(ctx(), clientId, setting === 'on'));
    });
  return clients;
}
