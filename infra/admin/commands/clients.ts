import { Command, Option } from 'commander';
import { output, type AdminContext } from '../context';

/** The API clients (key holders) as operators see them: never their keys, only the prefix. */
export function clientsCommand(ctx: () => AdminContext): Command {
  const clients = new Command('clients').description('API clients (the holders of keys)');
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
  return clients;
}
