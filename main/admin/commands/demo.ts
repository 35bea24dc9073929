import { Command } from 'commander';
import { seedDemoCatalogue } from '../../../services/demo-catalogue';
import { output, type AdminContext } from '../context';

/** `demo …`: the sandbox's demonstration material (spec 5.4); refused in production. */
export function demoCommand(ctx: () => AdminContext): Command {
  const demo = new Command('demo').description("the sandbox's demonstration catalogue (never in production)");
  demo
    .command('seed')
    .description(
      'load the demonstration catalogue (about 50 approved offers with images in five US cities); running it again adds nothing. Needs the running service (npm start) to approve them',
    )
    .action(async () => {
      const c = ctx();
      const deps = { db: c.db, temporal: await c.temporal(), config: c.config, log: c.log, store: c.store };
      output(await seedDemoCatalogue(deps));
    });
  return demo;
}
