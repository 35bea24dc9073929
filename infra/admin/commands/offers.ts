import { Command } from 'commander';
import { approveSignal, rejectSignal } from '../../../workflows/offer-review';
import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { reviewError, type OfferStatus } from '../../../workflows/shared/offer-lifecycle';
import { AdminError, output, type AdminContext } from '../context';

/** Waits until the workflow has written the decision, so the CLI prints the offer's new status. */
async function waitForStatus(ctx: AdminContext, offerId: string, from: string, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = await ctx.db.selectFrom('offers').select('status').where('id', '=', offerId).executeTakeFirstOrThrow();
    if (row.status !== from || Date.now() > until) return row.status;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function decide(ctx: AdminContext, offerId: string, decision: 'approve' | 'reject', opts: { reason?: string; reviewer?: string }) {
  const row = await ctx.db.selectFrom('offers').select(['status']).where('id', '=', offerId).executeTakeFirst();
  if (!row) throw new AdminError(`no offer ${offerId}`);
  const refused = reviewError(row.status as OfferStatus);
  if (refused) throw new AdminError(refused);
  const handle = (await ctx.temporal()).workflow.getHandle(offerReviewWorkflowId(offerId));
  // The very signals an operator could send from the Temporal CLI or UI.
  if (decision === 'approve') await handle.signal(approveSignal, { reviewer: opts.reviewer });
  else await handle.signal(rejectSignal, { reason: opts.reason, reviewer: opts.reviewer });
  output({ id: offerId, status: await waitForStatus(ctx, offerId, row.status) });
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
        .select(['id', 'title', 'type', 'status', 'client_id', 'advertiser_id', 'quantity_in_stock', 'submitted_at', 'reviewed_at', 'reviewed_by', 'rejection_reason', 'published_at', 'closed_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) throw new AdminError(`no offer ${id}`);
      output(row);
    });
  return offers;
}
