import { Command } from 'commander';
import { ReviewDecisionError, sendReviewDecision, waitForStatusChange, type ReviewVerdict } from '../../../services/review';
import { AdminError, output, type AdminContext } from '../context';

async function decide(ctx: AdminContext, offerId: string, decision: ReviewVerdict, opts: { reason?: string; reviewer?: string }) {
  const { from } = await sendReviewDecision({ db: ctx.db, temporal: await ctx.temporal() }, offerId, decision, opts).catch((err) => {
    throw err instanceof ReviewDecisionError ? new AdminError(err.message) : err;
  });
  output({ id: offerId, status: await waitForStatusChange(ctx.db, offerId, from) });
}

export function offersCommand(ctx: () => AdminContext): Command {
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
    .action(async () => {
      const rows = await ctx()
        .db.selectFrom('offers')
        .select(['id', 'title', 'type', 'client_id', 'submitted_at'])
        .where('status', '=', 'pending')
        .orderBy('submitted_at')
        .limit(500)
        .execute();
      output(rows);
    });
  offers
    .command('show')
    .description("an offer's status and review record")
    .argument('<offer-id>')
    .action(async (id: string) => {
      const row = await ctx()
        .db.selectFrom('offers')
        .select([
          'id',
          'title',
          'type',
          'status',
          'client_id',
          'advertiser_id',
          'quantity_in_stock',
          'submitted_at',
          'reviewed_at',
          'reviewed_by',
          'rejection_reason',
          'published_at',
          'closed_at',
        ])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) throw new AdminError(`no offer ${id}`);
      output(row);
    });
  return offers;
}
