import { createHarness, type Harness } from '../../setup/harness';
import { validOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { SUB } from '../../setup/paths';
import { decideWithinDeadline } from '../../../services/review';
import { setReviewSla } from '../../../services/review-sla';
import { DEFAULT_REVIEW_SLA_SECONDS } from '../../../domain/review-estimate';
import { OfferReviewResponse } from '../../../schemas/offer-review';
import { coerceXmlToSchema, parseXml } from '../../../schemas/xml';

/*
 * GET /offers/:id/review on the real stack (decision 0078): the steps the review workflow wrote to
 * Postgres, the place in the queue, the SLA, and `offer.review_overdue` from the workflow's own
 * timer when a short SLA passes, in the advertiser's feed.
 */
describe('following an offer review', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    key = await h.key('submission');
    otherKey = await h.key('submission');
  });
  // The SLA is the deployment's one value: the next file on this database finds the default again.
  afterAll(async () => {
    await setReviewSla(h.services, DEFAULT_REVIEW_SLA_SECONDS);
    await h.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, k = key, accept = 'application/json') =>
    h.app.inject({
      method,
      url: `${SUB}${url}`,
      headers: { 'x-service-api-key': k, accept },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await call('POST', '/offers', { offer: validOffer(overrides) });
    expect(res.statusCode).toBe(200);
    return res.json().offer.id as string;
  };
  const review = async (id: string, k = key) => {
    const res = await call('GET', `/offers/${id}/review`, undefined, k);
    expect(res.statusCode).toBe(200);
    return res.json().review;
  };
  const statusIs = (id: string, status: string) =>
    eventually(`offer ${status}`, async () => (await call('GET', `/offers/${id}`)).json().offer.status === status);

  it('tells the review through submit, edit, comment and approval, with the operator as the console names them', async () => {
    await setReviewSla(h.services, 3600);
    const id = await create({ title: 'Followed' });
    const pending = await review(id);
    expect(pending).toMatchObject({ offer_id: id, state: 'pending', queue_position: expect.any(Number) });
    expect(pending.queue_position).toBeGreaterThanOrEqual(1);
    const due = new Date(pending.sla.due_at).getTime() - new Date(pending.submitted_at).getTime();
    expect(Math.abs(due - 3600_000)).toBeLessThan(2000);
    expect(pending.sla.breached).toBe(false);
    expect(pending.sla.remaining_seconds).toBeGreaterThan(3500);
    const decidedBefore: number = pending.expected_decision_basis?.decisions ?? 0;

    expect((await call('PUT', `/offers/${id}`, { offer: { status: 'withdrawn' } })).statusCode).toBe(200);
    expect((await call('PUT', `/offers/${id}`, { offer: { title: 'Followed, edited' } })).statusCode).toBe(200);
    expect((await call('PUT', `/offers/${id}`, { offer: { status: 'pending' } })).statusCode).toBe(200);
    const comment = await call('POST', `/offers/${id}/comments`, { comment: { author_name: 'Merchant Mo', content: 'New photos are up' } });
    expect(comment.statusCode).toBe(200);
    await decideWithinDeadline(h.services, id, 'approve', { reviewer: 'ana' });
    await statusIs(id, 'approved');

    const done = await review(id);
    expect(done).toMatchObject({ state: 'approved', queue_position: null, sla: null, expected_decision_at: null });
    expect(done.steps.map((s: { type: string }) => s.type)).toEqual([
      'submitted',
      'withdrawn',
      'edited',
      'resubmitted',
      'commented',
      'approved',
    ]);
    expect(done.steps[2]).toMatchObject({ actor: 'advertiser', changed_fields: ['title'] });
    expect(done.steps[4]).toMatchObject({ actor: 'advertiser', author_name: 'Merchant Mo', content: 'New photos are up' });
    expect(done.steps[5]).toMatchObject({ actor: 'review_team', operator: 'ana' });
    // The decision counts in the next estimates: other files on this database decided offers too, so the basis
    // is the category's once it has 20 (domain/review-estimate.ts, tested on a seeded history in the unit lane).
    expect(['overall', 'category']).toContain(done.expected_decision_basis.scope);
    if (pending.expected_decision_basis?.scope === done.expected_decision_basis.scope)
      expect(done.expected_decision_basis.decisions).toBe(Math.min(decidedBefore + 1, 200));

    // The same answer in XML, read back by its own schema.
    const asXml = await call('GET', `/offers/${id}/review`, undefined, key, 'application/xml');
    expect(asXml.statusCode).toBe(200);
    const fromXml = coerceXmlToSchema(OfferReviewResponse, parseXml(asXml.body).response) as {
      review: { steps: unknown[]; state: string };
    };
    expect(fromXml.review.state).toBe('approved');
    expect(fromXml.review.steps).toHaveLength(6);
  });

  it("answers 404 for another client's offer, and for no offer", async () => {
    const id = await create();
    const res = await call('GET', `/offers/${id}/review`, undefined, otherKey);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0]).toMatchObject({ code: 'not_found' });
    expect((await call('GET', '/offers/ofr_nothing/review')).statusCode).toBe(404);
  });

  it('sends offer.review_overdue once when a short SLA passes, to the feed too; moving the SLA moves the timer', async () => {
    await setReviewSla(h.services, 3600);
    const id = await create({ title: 'Late' });
    // Moved to 2 s while pending: the workflow's timer follows the signal.
    await setReviewSla(h.services, 2);
    const feed = await eventually(
      'offer.review_overdue in the feed',
      async () => {
        const events = (await call('GET', '/events?limit=100')).json().events as Array<{
          type: string;
          offer_id: string;
          data: { due_at: string };
        }>;
        const mine = events.filter((e) => e.offer_id === id);
        return mine.some((e) => e.type === 'offer.review_overdue') && mine;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(feed.filter((e) => e.type === 'offer.review_overdue')).toHaveLength(1);
    const late = await review(id);
    expect(late.sla.breached).toBe(true);
    expect(late.sla.remaining_seconds).toBeLessThan(0);
    expect(late.steps.map((s: { type: string }) => s.type)).toEqual(['submitted', 'overdue']);
  });
});
