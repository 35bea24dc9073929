import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { rejectSignal } from '../../../workflows/offer-review-messages';
import { sql } from 'kysely';
import { deleteClientAttachment } from '../../../store/attachments';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { makePng, multipart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

describe('attachments and comments with real offers under the review workflow', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    key = await h.key('submission');
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, k = key) =>
    h.app.inject({
      method,
      url: `${SUB}${url}`,
      headers: { 'x-service-api-key': k },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const upload = async (k = key) => {
    const body = multipart([{ filename: 'hero.png', content: makePng() }]);
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: body.payload,
      headers: { ...body.headers, 'x-service-api-key': k },
    });
    return res.json().attachment.id as string;
  };
  const withMedia = (...ids: string[]) => ({
    offer: validOffer({ creative: { headlines: ['Dinner'], original_media: ids.map((id) => ({ id })) } }),
  });

  it("links an offer to the client's own uploads and refuses anyone else's or deleted ones", async () => {
    const [a, b] = [await upload(), await upload()];
    const created = await call('POST', '/offers', withMedia(a, b));
    expect(created.statusCode).toBe(200);
    expect(created.json().offer.creative.original_media).toEqual([{ id: a }, { id: b }]);

    const foreign = await upload(await h.key('submission'));
    const deleted = await upload();
    expect((await call('DELETE', `/attachments/${deleted}`)).statusCode).toBe(200);
    const refused = await call('POST', '/offers', withMedia(a, foreign, deleted));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'creative.original_media[1].id',
      'creative.original_media[2].id',
    ]);
  });

  it('refuses deleting an attachment an offer shows until an edit drops it, then deletes it', async () => {
    const [shown, other] = [await upload(), await upload()];
    const offer = (await call('POST', '/offers', withMedia(shown, other))).json().offer;
    const refused = await call('DELETE', `/attachments/${shown}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors[0]).toMatchObject({ code: 'attachment_in_use', offer_ids: [offer.id] });
    expect((await call('GET', `/attachments/${shown}`)).statusCode).toBe(200);
    // Withdrawn and edited without it, the offer no longer shows it: the deletion goes through.
    const put = (body: unknown) =>
      h.app.inject({ method: 'PUT', url: `${SUB}/offers/${offer.id}`, headers: { 'x-service-api-key': key }, payload: body as object });
    expect((await put({ offer: { status: 'withdrawn' } })).statusCode).toBe(200);
    const edited = await put({ offer: { creative: { headlines: ['Dinner'], original_media: [{ id: other }] } } });
    expect(edited.statusCode).toBe(200);
    expect((await call('DELETE', `/attachments/${shown}`)).statusCode).toBe(200);
    expect((await call('GET', `/attachments/${shown}`)).statusCode).toBe(404);
    expect((await call('GET', `/offers/${offer.id}`)).json().offer.creative.original_media).toEqual([{ id: other }]);
  });

  it('an offer written while its attachment is being deleted cannot name it: one of the two sees the other', async () => {
    const { key: k, clientId } = await h.client('submission');
    const attachment = await upload(k);
    // The deletion is stopped where it removes the bytes: its row is locked and marked, not yet committed.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const atRemoval = new Promise<void>((resolve) => (reached = resolve));
    const deletion = deleteClientAttachment(h.services.db, clientId, attachment, async () => {
      reached();
      await released;
    });
    await atRemoval;
    const media = { headlines: ['Dinner'], original_media: [{ id: attachment }] };
    const writing = seedOffer(h, clientId, { creative: media }, 'pending').then(
      (id) => ({ written: id }),
      (err: unknown) => ({ refused: err }),
    );
    await eventually('the offer write waiting for the deletion', async () => {
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%attachments%for share%'`.execute(
        h.services.db,
      );
      return Number(rows[0].n) > 0;
    });
    release();
    expect(await deletion).toBe(true);
    expect(await writing).toEqual({
      refused: expect.objectContaining({
        details: [expect.objectContaining({ code: 'invalid_field', field: 'creative.original_media[0].id' })],
      }),
    });
  });

  it('shows a rejection by the review team in the comment thread, read-only', async () => {
    const offer = (await call('POST', '/offers', withMedia())).json().offer;
    await call('POST', `/offers/${offer.id}/comments`, { comment: { author_name: 'Maria', content: 'Ready for review.' } });
    await h.services.temporal.workflow
      .getHandle(offerReviewWorkflowId(offer.id))
      .signal(rejectSignal, { reason: 'the headline is misleading', reviewer: 'Ana' });
    const comments = await eventually("the review team's comment", async () => {
      const all: { author_role: string; author_name: string; content: string; id: string }[] = (
        await call('GET', `/offers/${offer.id}/comments`)
      ).json().comments;
      return all.length >= 2 && all;
    });
    expect(comments.map((c) => [c.author_role, c.content])).toEqual([
      ['advertiser', 'Ready for review.'],
      ['review_team', expect.stringContaining('the headline is misleading')],
    ]);
    expect((await call('DELETE', `/offers/${offer.id}/comments/${comments[1].id}`)).statusCode).toBe(403);
  });
});
