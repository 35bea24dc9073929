import { createOfferActivities } from '../../../activities/offers';
import { seedOffer } from '../../setup/fixtures';
import { makePng, multipart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

describe('comments: the thread between advertiser and review team on an offer', () => {
  let h: Harness;
  let key: string;
  let clientId: string;
  let offerId: string;
  beforeAll(async () => {
    h = await createHarness();
    ({ key, clientId } = await h.client('submission'));
    offerId = await seedOffer(h, clientId, {}, 'pending');
  });
  afterAll(() => h.close());

  const req = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    apiKey = key,
    headers: Record<string, string> = {},
  ) =>
    h.app.inject({
      method,
      url: `${SUB}${url}`,
      headers: { 'x-service-api-key': apiKey, ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const uploadPng = async (apiKey = key) => {
    const body = multipart([{ filename: 'proof.png', content: makePng() }]);
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: body.payload,
      headers: { ...body.headers, 'x-service-api-key': apiKey },
    });
    return res.json().attachment as { id: string; file_name: string; download_url: string };
  };

  it('creates, lists, updates and deletes a comment', async () => {
    const att = await uploadPng();
    const created = await req('POST', `/offers/${offerId}/comments`, {
      comment: { author_name: 'Maria Rossi', content: 'Photo of the menu attached.', attachments: [{ id: att.id }] },
    });
    expect(created.statusCode).toBe(200);
    const { status, comment } = created.json();
    expect(status).toBe('OK');
    expect(comment).toMatchObject({ author_name: 'Maria Rossi', content: 'Photo of the menu attached.', author_role: 'advertiser' });
    expect(comment.id).toMatch(/^cmt_/);
    expect(new Date(comment.created_at).toISOString()).toBe(comment.created_at);
    expect(comment.attachments).toEqual([expect.objectContaining({ id: att.id, file_name: 'proof.png', download_url: att.download_url })]);

    const second = (
      await req('POST', `/offers/${offerId}/comments`, { comment: { author_name: 'Maria Rossi', content: 'And one more thing.' } })
    ).json().comment;
    expect(second.attachments).toEqual([]);

    const list = await req('GET', `/offers/${offerId}/comments`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ status: 'OK', page: 1, per_page: 25, total: 2 });
    expect(list.json().comments.map((c: { id: string }) => c.id)).toEqual([comment.id, second.id]);
    const paged = (await req('GET', `/offers/${offerId}/comments?page=2&per_page=1`)).json();
    expect(paged.comments.map((c: { id: string }) => c.id)).toEqual([second.id]);

    const updated = await req('PUT', `/offers/${offerId}/comments/${comment.id}`, {
      comment: { content: 'Updated: new menu photo.', attachments: [] },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().comment).toMatchObject({
      id: comment.id,
      author_name: 'Maria Rossi',
      content: 'Updated: new menu photo.',
      attachments: [],
      created_at: comment.created_at,
    });
    expect((await req('GET', `/offers/${offerId}/comments/${comment.id}`)).json().comment.content).toBe('Updated: new menu photo.');

    const deleted = await req('DELETE', `/offers/${offerId}/comments/${comment.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ status: 'OK' });
    expect((await req('GET', `/offers/${offerId}/comments/${comment.id}`)).statusCode).toBe(404);
    expect((await req('DELETE', `/offers/${offerId}/comments/${comment.id}`)).statusCode).toBe(404);
    expect((await req('PUT', `/offers/${offerId}/comments/${comment.id}`, { comment: { content: 'x' } })).statusCode).toBe(404);
    expect((await req('GET', `/offers/${offerId}/comments`)).json().total).toBe(1);
  });

  it('drops a deleted attachment from the comments that referred to it', async () => {
    const att = await uploadPng();
    const { comment } = (
      await req('POST', `/offers/${offerId}/comments`, {
        comment: { author_name: 'M', content: 'with file', attachments: [{ id: att.id }] },
      })
    ).json();
    expect(comment.attachments).toHaveLength(1);
    expect((await req('DELETE', `/attachments/${att.id}`)).statusCode).toBe(200);
    expect((await req('GET', `/offers/${offerId}/comments/${comment.id}`)).json().comment.attachments).toEqual([]);
  });

  it('answers 422 naming each bad field', async () => {
    const missing = await req('POST', `/offers/${offerId}/comments`, { comment: { author_name: 'Maria' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toEqual([expect.objectContaining({ code: 'invalid_field', field: 'content' })]);

    const blank = await req('POST', `/offers/${offerId}/comments`, { comment: { author_name: '  ', content: '   ' } });
    expect(blank.statusCode).toBe(422);
    expect(
      blank
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['author_name', 'content']);

    const foreign = await uploadPng((await h.client('submission')).key);
    const mine = await uploadPng();
    const badRefs = await req('POST', `/offers/${offerId}/comments`, {
      comment: { author_name: 'M', content: 'c', attachments: [{ id: mine.id }, { id: foreign.id }, { id: 'att_nope' }] },
    });
    expect(badRefs.statusCode).toBe(422);
    expect(badRefs.json().errors.map((e: { field: string }) => e.field)).toEqual(['attachments[1].id', 'attachments[2].id']);

    const { comment } = (await req('POST', `/offers/${offerId}/comments`, { comment: { author_name: 'M', content: 'c' } })).json();
    expect((await req('PUT', `/offers/${offerId}/comments/${comment.id}`, { comment: {} })).statusCode).toBe(422);
    expect(
      (await req('PUT', `/offers/${offerId}/comments/${comment.id}`, { comment: { attachments: [{ id: foreign.id }] } })).statusCode,
    ).toBe(422);
  });

  it("treats another client's offer, and its comments, as not found", async () => {
    const other = await h.client('submission');
    const { comment } = (await req('POST', `/offers/${offerId}/comments`, { comment: { author_name: 'M', content: 'private' } })).json();
    for (const res of [
      await req('GET', `/offers/${offerId}/comments`, undefined, other.key),
      await req('POST', `/offers/${offerId}/comments`, { comment: { author_name: 'X', content: 'y' } }, other.key),
      await req('PUT', `/offers/${offerId}/comments/${comment.id}`, { comment: { content: 'hijack' } }, other.key),
      await req('DELETE', `/offers/${offerId}/comments/${comment.id}`, undefined, other.key),
      await req('GET', `/offers/ofr_missing/comments`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().errors[0].code).toBe('not_found');
    }
    // A comment id of another offer is not found under this one.
    const otherOffer = await seedOffer(h, clientId);
    expect((await req('GET', `/offers/${otherOffer}/comments/${comment.id}`)).statusCode).toBe(404);
    expect((await req('DELETE', `/offers/${otherOffer}/comments/${comment.id}`)).statusCode).toBe(404);
  });

  it('lists a rejection by the review team but refuses to change or delete it (403)', async () => {
    const rejected = await seedOffer(h, clientId, {}, 'pending');
    // Through the review workflow's activity, as a rejection is recorded.
    await createOfferActivities(h.services).recordOfferStatus({
      key: `test:${rejected}:reject`,
      offerId: rejected,
      to: 'rejected',
      actor: 'review_team',
      reviewer: 'Review team',
      reason: 'the photo is blurry',
    });
    const list = (await req('GET', `/offers/${rejected}/comments`)).json();
    expect(list.comments).toEqual([
      expect.objectContaining({
        author_role: 'review_team',
        author_name: 'Review team',
        content: 'Rejected: the photo is blurry',
        attachments: [],
      }),
    ]);
    const reviewComment = list.comments[0].id;
    for (const res of [
      await req('PUT', `/offers/${rejected}/comments/${reviewComment}`, { comment: { content: 'not blurry at all' } }),
      await req('DELETE', `/offers/${rejected}/comments/${reviewComment}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0].code).toBe('forbidden');
    }
    expect((await req('GET', `/offers/${rejected}/comments/${reviewComment}`)).json().comment.content).toBe(
      'Rejected: the photo is blurry',
    );
  });

  it('round-trips a comment with attachments in XML', async () => {
    const [a, b] = [await uploadPng(), await uploadPng()];
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><comment><author_name>Maria &amp; Co</author_name><content>Two photos &lt;attached&gt;</content>' +
      `<attachments><attachment><id>${a.id}</id></attachment><attachment><id>${b.id}</id></attachment></attachments></comment>`;
    const headers = { 'content-type': 'application/xml', accept: 'application/xml' };
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/comments`,
      payload: xml,
      headers: { 'x-service-api-key': key, ...headers },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.body).toMatch(
      /^<\?xml[^>]*><response><status>OK<\/status><comment><id>cmt_[^<]+<\/id><author_name>Maria &amp; Co<\/author_name><content>Two photos &lt;attached&gt;<\/content><created_at>/,
    );
    expect(res.body).toContain(`<attachments><attachment><id>${a.id}</id><file_name>proof.png</file_name>`);
    expect(res.body).toContain(`</attachment><attachment><id>${b.id}</id>`);
    const id = /<comment><id>([^<]+)<\/id>/.exec(res.body)![1];

    const json = (await req('GET', `/offers/${offerId}/comments/${id}`)).json().comment;
    expect(json).toMatchObject({ author_name: 'Maria & Co', content: 'Two photos <attached>' });
    expect(json.attachments.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);

    const one = `<comment><content>Only one now</content><attachments><attachment><id>${b.id}</id></attachment></attachments></comment>`;
    const put = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/offers/${offerId}/comments/${id}.xml`,
      payload: one,
      headers: { 'x-service-api-key': key, 'content-type': 'application/xml' },
    });
    expect(put.statusCode).toBe(200);
    expect(put.body).toContain('<content>Only one now</content>');
    expect(put.body).toContain(`<attachments><attachment><id>${b.id}</id>`);

    const list = await req('GET', `/offers/${offerId}/comments.xml`);
    expect(list.body).toMatch(/<response><status>OK<\/status><comments><comment><id>/);
    expect(list.body).toMatch(/<\/comments><page>1<\/page><per_page>25<\/per_page><total>\d+<\/total><\/response>$/);

    const invalid = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/comments`,
      payload: '<comment><author_name>M</author_name></comment>',
      headers: { 'x-service-api-key': key, ...headers },
    });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.body).toContain('<field>content</field>');
  });
});
