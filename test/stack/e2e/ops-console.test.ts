import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../setup/chromium';
import { makePng, multipart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { validOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { SUB } from '../../setup/paths';

/* The review console in a real browser: the registry package's headless Chromium driven by playwright-core (test/setup/chromium.ts). */
// Two operators, each signing in as themselves (the operators table holds their scrypt hashes).
const BO = { username: 'reviewer-bo', password: 'e2e operator password 42' };
const CY = { username: 'reviewer-cy', password: 'another operator pass 7' };
/** A screenshot of each page, kept for people to look at (test-artifacts/ is gitignored). */
const ARTIFACTS = path.join(__dirname, '..', '..', '..', 'test-artifacts', 'ops-console');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

describe('review console in headless Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let base: string;
  let key: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    h = await createHarness({ worker: true });
    for (const o of [BO, CY]) await h.operator(o.username, o.password);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    key = await h.key('submission');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const sub = async (method: 'GET' | 'POST', url: string, payload?: object) =>
    h.app.inject({ method, url: `${SUB}${url}`, headers: { 'x-service-api-key': key }, ...(payload ? { payload } : {}) });

  /** Walks the queue's pages until the offer's row shows (other test files leave pending offers too). */
  async function openFromQueue(page: Page, title: string) {
    await page.goto(`${base}/ops`);
    for (;;) {
      const link = page.getByRole('link', { name: title, exact: true });
      if (await link.count()) {
        await shot(page, 'queue');
        return link.click();
      }
      const next = page.getByRole('link', { name: /next page/ });
      if (!(await next.count())) throw new Error(`offer "${title}" is not in the review queue`);
      await next.click();
    }
  }

  /** The console waits 5 s for the workflow, then asks to reload; on a loaded machine, do as asked. */
  async function reloadWhilePending(page: Page) {
    await eventually(
      'the console to show the decision',
      async () => {
        if ((await page.textContent('[data-testid=status]')) !== 'pending') return true;
        await page.reload();
        return false;
      },
      { intervalMs: 500 },
    );
  }

  it('refuses a browser without the operator credential, or with a wrong one', async () => {
    // Chromium answers the Basic challenge with what it has. With nothing, the navigation ends in
    // the browser's own auth error; with a wrong password, on the console's 401 page.
    for (const httpCredentials of [undefined, { username: BO.username, password: CY.password }]) {
      const context = await browser.newContext(httpCredentials ? { httpCredentials } : {});
      try {
        const page = await context.newPage();
        const outcome = await page.goto(`${base}/ops`).then(
          async (res) => `${res?.status()} ${await page.textContent('h1')}`,
          (err: Error) => err.message,
        );
        expect(outcome).toMatch(/ERR_INVALID_AUTH_CREDENTIALS|^401 Sign in required/);
        expect(outcome).not.toContain('Waiting for review');
        if (httpCredentials) await shot(page, 'sign-in-refused');
      } finally {
        await context.close();
      }
    }
  });

  it('logs in as one operator, finds a pending offer, sees its thumbnail and history, approves it and is recorded as its reviewer', async () => {
    const title = `Sunset cruise ${Date.now()}`;
    const upload = multipart([{ filename: 'boat.png', content: makePng(32, 24) }]);
    const att = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: upload.payload,
      headers: { ...upload.headers, 'x-service-api-key': key },
    });
    expect(att.statusCode).toBe(200);
    const created = await sub('POST', '/offers', {
      offer: validOffer({
        title,
        creative: { headlines: ['Two hours at sea'], description: 'Drinks included.', original_media: [{ id: att.json().attachment.id }] },
      }),
    });
    expect(created.statusCode).toBe(200);
    const id = created.json().offer.id as string;

    const context = await browser.newContext({ httpCredentials: BO });
    try {
      const page = await context.newPage();
      await openFromQueue(page, title);
      await page.waitForURL(`${base}/ops/offers/${id}`);
      expect(await page.textContent('h1')).toContain(title);
      expect(await page.textContent('[data-testid=status]')).toBe('pending');
      expect(await page.textContent('main')).toContain('Two hours at sea');
      expect(await page.textContent('main')).toContain('Trattoria Roma');
      // The image came through the ops-only attachment route, under the same login.
      const img = page.locator('img.media');
      await expect(
        img.evaluate(
          (el) =>
            (el as unknown as { complete: boolean; naturalWidth: number }).complete &&
            (el as unknown as { naturalWidth: number }).naturalWidth,
        ),
      ).resolves.toBe(32);
      // Shown as a thumbnail, linked to the full image.
      expect(await img.evaluate((el) => (el as unknown as { clientWidth: number }).clientWidth)).toBeGreaterThan(100);
      expect(await page.locator('figure.thumb a').getAttribute('href')).toBe(await img.getAttribute('src'));
      expect(await page.textContent('[data-testid=operator]')).toBe('signed in as reviewer-bo');
      expect(await page.locator('[data-testid=timeline] li').allTextContents()).toEqual([expect.stringContaining('Submitted for review')]);
      expect(await page.locator('[data-testid=temporal-link]').getAttribute('href')).toMatch(
        new RegExp(`/namespaces/default/workflows/offer-review%3A${id}/[\\w-]+/history$`),
      );
      await shot(page, 'offer-pending');

      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(`${base}/ops/offers/${id}?sent=approve`);
      await reloadWhilePending(page);
      expect(await page.textContent('[data-testid=status]')).toBe('approved');
      expect(await page.textContent('.notice')).toContain('now approved');
      const history = await page.locator('[data-testid=timeline] li').allTextContents();
      expect(history).toHaveLength(2);
      expect(history[1].replace(/\s+/g, ' ')).toMatch(/UTC ?Approved by reviewer-bo/);
      await shot(page, 'offer-approved');

      const offer = (await sub('GET', `/offers/${id}`)).json().offer;
      expect(offer.status).toBe('approved');
      expect(offer.reviewed_at).not.toBeNull();
      const row = await h.services.db.selectFrom('offers').select('reviewed_by').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.reviewed_by).toBe('reviewer-bo');
    } finally {
      await context.close();
    }
  });

  it('another operator rejects with a reason typed into the form, and the history names them', async () => {
    const title = `Pottery class ${Date.now()}`;
    const id = (await sub('POST', '/offers', { offer: validOffer({ title }) })).json().offer.id as string;
    const context = await browser.newContext({ httpCredentials: CY });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/ops/offers/${id}`);
      await page.fill('#reason', 'Photos do not show the venue');
      await page.getByRole('button', { name: 'Reject' }).click();
      await page.waitForURL(`${base}/ops/offers/${id}?sent=reject`);
      await reloadWhilePending(page);
      expect(await page.textContent('[data-testid=status]')).toBe('rejected');
      expect(await page.textContent('main')).toContain('Photos do not show the venue');
      expect((await page.locator('[data-testid=timeline] li').last().textContent())?.replace(/\s+/g, ' ')).toContain(
        'Rejected by reviewer-cy: “Photos do not show the venue”',
      );
      await shot(page, 'offer-rejected');
      expect((await sub('GET', `/offers/${id}`)).json().offer).toMatchObject({
        status: 'rejected',
        rejection_reason: 'Photos do not show the venue',
      });
    } finally {
      await context.close();
    }
  });

  it('filters the queue by type and waiting time, showing how long each offer has waited', async () => {
    const title = `Coffee coupon ${Date.now()}`;
    await sub('POST', '/offers', {
      offer: validOffer({ title, type: 'coupon', price: undefined, value: undefined, initial_quantity: undefined }),
    });
    const context = await browser.newContext({ httpCredentials: CY });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/ops`);
      await page.selectOption('select[name=type]', 'coupon');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/type=coupon/);
      const types = await page.locator('tr[data-offer-id] td:nth-child(2)').allTextContents();
      expect(types.length).toBeGreaterThan(0);
      expect(new Set(types)).toEqual(new Set(['coupon']));
      expect(await page.locator('[data-testid=waited]').first().textContent()).toMatch(/^\d+ (s|min|h|d)/);
      await shot(page, 'queue-filtered');
      // Nothing of this run has waited a week.
      await page.selectOption('select[name=waiting]', '7d');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/waiting=7d/);
      expect(await page.getByRole('link', { name: title, exact: true }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
