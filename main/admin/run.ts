import { Command, CommanderError } from 'commander';
import { callbacksCommand } from './commands/callbacks';
import { clientsCommand } from './commands/clients';
import { staffCommand } from './commands/staff';
import { demoCommand } from './commands/demo';
import { deployCommand } from './commands/deploy';
import { keysCommand } from './commands/keys';
import { offersCommand } from './commands/offers';
import { opsCommand } from './commands/ops';
import { ordersCommand } from './commands/orders';
import { postalCodesCommand } from './commands/postal-codes';
import { statementsCommand } from './commands/statements';
import { vouchersCommand } from './commands/vouchers';
import { workflowsCommand } from './commands/workflows';
import { Failure } from '../../domain/failures';
import { checkedLines } from '../../api/routes/submission/offer-import-lines';
import { AdminContext, AdminError } from './context';
import { ConfigError } from '../../platform/config';
import { adminIo, withAdminIo, type AdminIo } from './io';

/**
 * Operators' command line: `npm run --silent admin -- <command>`. Results go to stdout (a key, or
 * JSON), everything else to stderr. Each area of the service adds its command group here.
 */
export function runAdmin(argv: string[], io?: AdminIo): Promise<number> {
  return io ? withAdminIo(io, () => run(argv)) : run(argv);
}

async function run(argv: string[]): Promise<number> {
  const io = adminIo();
  let context: AdminContext | undefined;
  const ctx = () => (context ??= new AdminContext());
  const program = new Command('admin')
    .description('Offer marketplace operator commands')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addCommand(keysCommand(ctx))
    .addCommand(clientsCommand(ctx))
    .addCommand(offersCommand(ctx, checkedLines))
    .addCommand(ordersCommand(ctx))
    .addCommand(callbacksCommand(ctx))
    .addCommand(workflowsCommand(ctx))
    .addCommand(deployCommand(ctx))
    .addCommand(demoCommand(ctx))
    .addCommand(opsCommand(ctx))
    .addCommand(postalCodesCommand(ctx))
    .addCommand(statementsCommand(ctx))
    .addCommand(vouchersCommand(ctx))
    .addCommand(staffCommand(ctx));
  // Sub-commands are built apart (addCommand), so they take the program's output and exit settings here.
  const inherit = (cmd: Command) => cmd.commands.forEach((sub) => inherit(sub.copyInheritedSettings(cmd)));
  inherit(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    // A bad setting is reported by variable name, as every entry point reports it.
    if (err instanceof ConfigError) return (io.stderr.write(`${err.message}\n`), 1);
    io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    if (!(err instanceof AdminError || err instanceof Failure) && io.env.ADMIN_DEBUG)
      io.stderr.write(`${err instanceof Error ? err.stack : ''}\n`);
    return 1;
  } finally {
    await context?.close();
  }
}
