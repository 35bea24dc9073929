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

/**
 * Operators' command line: `npm run --silent admin -- <command>`. Results go to stdout (a key, or
 * JSON), everything else to stderr. Each area of the service adds its command group here.
 */
async function main(argv: string[]): Promise<number> {
  let context: AdminContext | undefined;
  const ctx = () => (context ??= new AdminContext());
  const program = new Command('admin')
    .description('Offer marketplace operator commands')
    .exitOverride()
    .showHelpAfterError()
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
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    if (!(err instanceof AdminError || err instanceof Failure) && process.env.ADMIN_DEBUG) console.error(err);
    return 1;
  } finally {
    await context?.close();
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
