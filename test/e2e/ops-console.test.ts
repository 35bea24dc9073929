import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { makePng, multipart } from '../setup/files';
import { createHarness, type Harness } from '../setup/harness';
import { validOffer } from '../setup/fixtures';

/*
 * The review console in a real browser: Debian's Chromium driven by playwright-core (never a
 * downloaded browser). CI installs the `chromium` package (.ci/run); without it this test fails
 * and says so, it is never skipped.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const OPS_USERNAME = 'reviewer-bo';
const OPS_PASSWORD = 'e2e operator password 42';
const SUB = '/submission/beta';

describe('review console in headless Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let base: string;
  let key: string;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH. This browser test is required, not optional.`,
      );
    }
    h = await createHarness({ worker: true, env: { OPS_USERNAME, OPS_PASSWORD } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    key = await h.key('submission');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
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
        await page.screenshot({ path: path.join(os.tmpdir(), 'ops-console-queue.png') });
        return link.click();
      }
      const next = page.getByRole('link', { name: /next page/ });
      if (!(await next.count())) throw new Error(`offer "${title}" is not in the review queue`);
      await next.click();
    }
  }

  /** The console waits 5 s for the workflow, then asks to reload; on a loaded machine, do as asked. */
  async function reloadWhilePending(page: Page) {
    for (let i = 0; i < 20 && (await page.textContent('[data-testid=status]')) === 'pending'; i++) {
      await page.waitForTimeout(500);
      await page.reload();
    }
  }

  it('refuses a browser without the operator credential, or with a wrong one', async () => {
    // Chromium answers the Basic challenge with what it has. With nothing, the navigation ends in
    // the browser's own auth error; with a wrong password, on the console's 401 page.
    for (const httpCredentials of [undefined, { username: OPS_USERNAME, password: 'not the password' }]) {
      const context = await browser.newContext(httpCredentials ? { httpCredentials } : {});
      try {
        const page = await context.newPage();
        const outcome = await page.goto(`${base}/ops`).then(
          async (res) => `${res?.status()} ${await page.textContent('h1')}`,
          (err: Error) => err.message,
        );
        expect(outcome).toMatch(/ERR_INVALID_AUTH_CREDENTIALS|^401 Sign in required/);
        expect(outcome).not.toContain('Waiting for review');
      } finally {
        await context.close();
      }
    }
  });

  it('logs in, finds a pending offer, opens it, approves it and sees it approved', async () => {
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

    const context = await browser.newContext({ httpCredentials: { username: OPS_USERNAME, password: OPS_PASSWORD } });
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

      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(`${base}/ops/offers/${id}?sent=approve`);
      await reloadWhilePending(page);
      expect(await page.textContent('[data-testid=status]')).toBe('approved');
      expect(await page.textContent('.notice')).toContain('now approved');
      await page.screenshot({ path: path.join(os.tmpdir(), 'ops-console-approved.png'), fullPage: true });

      const offer = (await sub('GET', `/offers/${id}`)).json().offer;
      expect(offer.status).toBe('approved');
      expect(offer.reviewed_at).not.toBeNull();
    } finally {
      await context.close();
    }
  });

  it('rejects with a reason typed into the form', async () => {
    const title = `Pottery class ${Date.now()}`;
    const id = (await sub('POST', '/offers', { offer: validOffer({ title }) })).json().offer.id as string;
    const context = await browser.newContext({ httpCredentials: { username: OPS_USERNAME, password: OPS_PASSWORD } });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/ops/offers/${id}`);
      await page.fill('#reason', 'Photos do not show the venue');
      await page.getByRole('button', { name: 'Reject' }).click();
      await page.waitForURL(`${base}/ops/offers/${id}?sent=reject`);
      await reloadWhilePending(page);
      expect(await page.textContent('[data-testid=status]')).toBe('rejected');
      expect(await page.textContent('main')).toContain('Photos do not show the venue');
      expect((await sub('GET', `/offers/${id}`)).json().offer).toMatchObject({
        status: 'rejected',
        rejection_reason: 'Photos do not show the venue',
      });
    } finally {
      await context.close();
    }
  });
});
