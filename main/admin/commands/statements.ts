import { Command } from 'commander';
import { runMonthlyStatements } from '../../../services/monthly-statements';
import { output, type AdminContext } from '../context';

/** `statements …`: the monthly statements (docs/statements.md "Monthly statements"). */
export function statementsCommand(ctx: () => AdminContext): Command {
  const cmd = new Command('statements').description('monthly statements of sales per client');
  cmd
    .command('run')
    .description(
      'make and store the statements of a month now (the schedule does it on the 1st for the month before); safe to repeat; only a month that is over (UTC)',
    )
    .argument('<month>', 'YYYY-MM (UTC)')
    .action(async (month: string) => {
      const c = ctx();
      output(await runMonthlyStatements({ temporal: await c.temporal(), config: c.config }, month));
    });
  return cmd;
}
