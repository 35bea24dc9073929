import { Command } from 'commander';
import { createStaff, listStaff, newSignIn, revokeStaff } from '../../../services/redemption-staff';
import { output, type AdminContext } from '../context';

/*
 * The advertiser's counter staff from the operator's side (docs/merchant-counter.md): the same
 * services as the submission API's /redemption_staff, for one submission client. The sign-in
 * link is built from PUBLIC_BASE_URL (else http://localhost:PORT): set it to the address staff open.
 */

const siteBase = (ctx: AdminContext) => ctx.config.PUBLIC_BASE_URL ?? `http://localhost:${ctx.config.PORT}`;

export function staffCommand(ctx: () => AdminContext): Command {
  const staff = new Command('staff').description("an advertiser's redemption staff for the /merchant counter page");
  staff
    .command('add')
    .description('create a staff member; prints its one-time sign-in link and code')
    .requiredOption('--client <client-id>', 'the submission client')
    .requiredOption('--advertiser <advertiser-id>', 'one of its advertisers')
    .requiredOption('--name <name>', 'shown at the counter and recorded with each redemption')
    .option('--postal-code <code...>', "only at the advertiser's locations with these postal codes")
    .action(async (o: { client: string; advertiser: string; name: string; postalCode?: string[] }) => {
      const c = ctx();
      const { staff: s, signIn } = await createStaff(
        c,
        o.client,
        { name: o.name, advertiser_id: o.advertiser, postal_codes: o.postalCode },
        siteBase(c),
      );
      output({ ...s, sign_in: signIn });
    });
  staff
    .command('list')
    .description("a client's staff, newest first (never a sign-in code)")
    .requiredOption('--client <client-id>', 'the submission client')
    .option('--advertiser <advertiser-id>', 'only this advertiser')
    .action(async (o: { client: string; advertiser?: string }) => {
      output((await listStaff(ctx(), o.client, { page: 1, per_page: 500 }, o.advertiser)).rows);
    });
  staff
    .command('sign-in')
    .description('a new one-time sign-in for another device or shift (the previous code stops working)')
    .requiredOption('--client <client-id>', 'the submission client')
    .argument('<staff-id>')
    .action(async (id: string, o: { client: string }) => {
      const c = ctx();
      const { staff: s, signIn } = await newSignIn(c, o.client, id, siteBase(c));
      output({ ...s, sign_in: signIn });
    });
  staff
    .command('revoke')
    .description('revoke a staff member: signed out at once')
    .requiredOption('--client <client-id>', 'the submission client')
    .argument('<staff-id>')
    .action(async (id: string, o: { client: string }) => {
      output(await revokeStaff(ctx(), o.client, id));
    });
  return staff;
}
