import type { AddressInfo } from 'node:net';
import type { Browser, Page, Response } from 'playwright-core';
import { signupOf } from '../../../services/developer-signups';
import { launchChromium } from '../../setup/chromium';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * The developer sign-up page in a real browser, on a real listening server: what a browser sends
 * with the form post (its Origin, Sec-Fetch-Site) is the browser's, not the test's. The API tests
 * (test/stack/api/developer-signup.test.ts) set those headers by hand and so could not see that the
 * page's referrer policy made Chromium send `Origin: null` with the site's own form.
 */

const PAGE = '/developer/signup';
let uniq = 0;
const email = (tag: string) => `${tag}-${Date.now()}-${++uniq}@example.com`;

describe('developer sign-up page in headless Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: '50' } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    // The service listens on loopback here, where Chromium's own Local Network Access guard would
    // stop another site's post before it arrives; a deployed service is not on the visitor's local
    // network, so that guard is off and what refuses a cross-site post below is the service.
    browser = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
    const context = await browser.newContext();
    try {
      return await run(await context.newPage());
    } finally {
      await context.close();
    }
  }

  /** Clicks the form's button and answers the sign-up POST's response. */
  async function submit(page: Page, click: () => Promise<void>): Promise<Response> {
    const [res] = await Promise.all([
      page.context().waitForEvent('response', (r) => r.url() === `${base}${PAGE}` && r.request().method() === 'POST'),
      click(),
    ]);
    return res;
  }

  /** A search on the distribution interface with `key`: its status. */
  const search = async (key: string) =>
    (await h.app.inject({ method: 'GET', url: `${DIST}/offers?per_page=1`, headers: { 'x-service-api-key': key } })).statusCode;

  it('shows the form and the demonstration key, signs up, and shows a key pair that works', async () => {
    await withPage(async (page) => {
      await page.goto(`${base}${PAGE}`);
      // The sandbox's shared demonstration key, what it may do, and it searches.
      const demo = (await page.textContent('[data-testid=demo-key]'))!.trim();
      expect(demo).toMatch(/^om_test_dist_demo_/);
      expect(await page.textContent('[data-testid=demo-key-box]')).toContain('search and read offers and categories');
      expect(await search(demo)).toBe(200);

      const given = email('browser');
      await page.getByLabel('Email address').fill(given);
      await page.getByLabel(/^Name/).fill('Browser Deals');
      const res = await submit(page, () => page.getByRole('button', { name: 'Get my keys' }).click());
      // The browser sent the page's real origin (not "null"), so the site's own form is accepted.
      expect(await res.request().headerValue('origin')).toBe(base);
      expect(res.status()).toBe(200);
      expect(await page.textContent('h1')).toBe('Your sandbox keys');

      const sub = (await page.textContent('[data-testid=submission-key]'))!.trim();
      const dist = (await page.textContent('[data-testid=distribution-key]'))!.trim();
      expect(sub).toMatch(/^om_test_sub_/);
      expect(dist).toMatch(/^om_test_dist_/);
      expect(await search(dist)).toBe(200);
      const categories = await h.app.inject({ method: 'GET', url: `${SUB}/categories`, headers: { 'x-service-api-key': sub } });
      expect(categories.statusCode).toBe(200);
      expect(await signupOf(h.services, given)).toMatchObject({ name: 'Browser Deals', client_address: '127.0.0.1' });
    });
  });

  /** A form posting a sign-up to this service, as another site would serve it. */
  const attackerForm = (address: string) =>
    `<form method="post" action="${base}${PAGE}"><input name="email" value="${address}"><button>Go</button></form>`;

  it.each([
    ['a page on another site', 'site'],
    ['a data: URL (Origin null)', 'data'],
    ['a sandboxed iframe on another site (Origin null)', 'sandboxed'],
  ])('refuses the form posted from %s (403), signing nobody up', async (_what, from) => {
    await withPage(async (page) => {
      const victim = email(`csrf-${from}`);
      const form = attackerForm(victim);
      await page.route('http://evil.example/**', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: from === 'sandboxed' ? `<iframe sandbox="allow-forms" srcdoc="${form.replace(/"/g, '&quot;')}"></iframe>` : form,
        }),
      );
      await page.goto(from === 'data' ? `data:text/html,${encodeURIComponent(form)}` : 'http://evil.example/');
      const frame = from === 'sandboxed' ? page.frameLocator('iframe') : page;
      if (from === 'sandboxed') await frame.getByRole('button', { name: 'Go' }).waitFor();
      const res = await submit(page, () => frame.getByRole('button', { name: 'Go' }).click());
      expect(res.status()).toBe(403);
      if (from !== 'site') expect(await res.request().headerValue('origin')).toBe('null');
      // (The sandboxed frame's answer is not shown: Chromium blocks it, the refusal is the 403.)
      if (from !== 'sandboxed') expect(await res.text()).toContain('accepted from this site');
      await expect(signupOf(h.services, victim)).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  it('shows the demonstration key above the API reference', async () => {
    await withPage(async (page) => {
      await page.goto(`${base}/docs`);
      const notice = page.getByTestId('demo-key-notice');
      expect(await notice.textContent()).toContain('search and read offers and categories');
      const key = (await page.getByTestId('demo-key').textContent())!.trim();
      expect(key).toMatch(/^om_test_dist_demo_/);
      expect(await search(key)).toBe(200);
      // The reference itself still renders below it.
      await page.locator('.swagger-ui .info .title').waitFor();
    });
  });
});
