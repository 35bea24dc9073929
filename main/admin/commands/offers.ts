import { Command } from 'commander';
import { pendingReviews, reviewRecord, sendReviewDecision, waitForStatusChange, type ReviewVerdict } from '../../../services/review';
import { currentReviewSla, setReviewSla } from '../../../services/review-sla';
import { output, type AdminContext } from '../context';
import { importOffers, type CheckImportFile } from './offer-import';

async function decide(ctx: AdminContext, offerId: string, decision: ReviewVerdict, opts: { reason?: string; reviewer?: string }) {
  const deps = { db: ctx.db, temporal: await ctx.temporal() };
  const { from } = await sendReviewDecision(deps, offerId, decision, opts);
  output({ id: offerId, status: await waitForStatusChange(deps, offerId, from) });
}

/** `admin offers …`: the review team's commands. */
export function offersCommand(ctx: () => AdminContext, checkImportFile: CheckImportFile): Command {
  const offers = new Command('offers').description('the review team: decide on submitted offers');
  offers
    .command('approve')
    .description('approve a pending offer (signal `approve` to its review workflow)')
    .argument('<offer-id>')
    .option('--reviewer <name>', 'who decided, recorded with the decision')
    .action((id: string, o: { reviewer?: string }) => decide(ctx(), id, 'approve', o));
  offers
    .command('reject')
    .description('reject a pending offer with a reason the advertiser sees (signal `reject`)')
    .argument('<offer-id>')
    .requiredOption('--reason <text>', 'why; shown to the advertiser as a comment and in rejection_reason')
    .option('--reviewer <name>', 'who decided, recorded with the decision')
    .action((id: string, o: { reason: string; reviewer?: string }) => decide(ctx(), id, 'reject', o));
  offers
    .command('pending')
    .description('list offers waiting for review, oldest first')
    .action(async () => output(await pendingReviews({ db: ctx().db })));
  offers
    .command('show')
    .description("an offer's status and review record")
    .argument('<offer-id>')
    .action(async (id: string) => output(await reviewRecord({ db: ctx().db }, id)));
  offers
    .command('review-sla')
    .description("show the review SLA, or set it (every pending review's due time moves with it; decision 0078)")
    .option('--hours <n>', 'the SLA in hours (decimals allowed)', Number)
    .action(async (o: { hours?: number }) => {
      const c = ctx();
      if (o.hours === undefined) return output({ seconds: await currentReviewSla({ db: c.db }) });
      const seconds = Math.round(o.hours * 3600);
      output(await setReviewSla({ db: c.db, temporal: await c.temporal(), log: c.log }, seconds));
    });
  offers
    .command('import')
    .description('import an NDJSON file of offers (one {"offer": …} per line) for a submission client, showing progress on stderr')
    .argument('<file>')
    .requiredOption('--client <submission-client-id>', 'whose offers they become')
    .action((file: string, o: { client: string }) => importOffers(ctx(), checkImportFile, file, o));
  return offers;
}
