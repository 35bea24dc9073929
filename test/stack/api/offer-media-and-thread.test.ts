import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { rejectSignal } from '../../../workflows/offer-review-messages';
import { validOffer } from '../../setup/fixtures';
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
