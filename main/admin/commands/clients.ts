import { Argument, Command, Option } from 'commander';
import { listClients, setReservations } from '../../../services/api-clients';
import { signupOf } from '../../../services/developer-signups';
import { output, type AdminContext } from '../context';

/** The API clients (key holders) as operators see them: never their keys, only the prefix. */
export function clientsCommand(ctx: () => AdminContext): Command {
  const clients = new Command('clients').description('API clients (the holders of keys) and their settings');
  clients
    .command('list')
    .description('list clients with their interface, environment, key prefix and state')
    .addOption(new Option('--interface <interface>', 'only this interface').choices(['submission', 'distribution']))
    .option('--all', 'include revoked keys', false)
    .action(async (o: { interface?: 'submission' | 'distribution'; all: boolean }) => {
      output(await listClients(ctx(), { interface: o.interface, includeRevoked: o.all }));
    });
  clients
    .command('reservations')
    .description('allow (on) or stop (off) reservations for a distribution client; running reservations keep their hold')
    .argument('<client-id>')
    .addArgument(new Argument('<setting>').choices(['on', 'off']))
    .action(async (clientId: string, setting: 'on' | 'off') => {
      output(await setReservations(ctx(), clientId, setting === 'on'));
    });
  clients
    .command('signup')
    .description('a developer sign-up (sandbox) by email address: its two client ids, when and from which address')
    .argument('<email>')
    .action(async (email: string) => {
      output(await signupOf(ctx(), email));
    });
  return clients;
}
