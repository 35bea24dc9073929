import { Command, Argument } from 'commander';
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

export function clientsCommand(ctx: () => AdminContext): Command {
  const clients = new Command('clients').description('settings of API clients');
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
