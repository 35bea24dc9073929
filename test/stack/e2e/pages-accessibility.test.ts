import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeProblems, launchChromium } from '../../setup/chromium';
import { advertiserId, createStaff } from '../../setup/counter';
import { advertiserNamed, buyOne, GIFT_CARD_50, seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * Every HTML page the service serves, in each of its states, in headless Chromium at a phone's
 * 390×844 (issue 45): axe-core finds no serious or critical violation, and every control of every
 * form is reached with the Tab key alone. The pages: the customer's voucher page (deal, gift card,
 * redeemed) and the distributor's print copy of it, the developer sign-up (form, keys), the review
 * console (queue, offer, not found), the merchant counter (sign-in, session ended, signed out,
 * start page, a voucher, not found). The counter's own journey is merchant-counter-browser.test.ts.
 */

const PHONE = { width: 390, height: 844 };
const OPERATOR = { username: 'reviewer-axe', password: 'axe operator password 42' };

/** The form controls (and scrollable boxes) that Tab never reaches, walking the page from its top. */
async function unreachedByKeyboard(page: Page): Promise<string[]> {
  const wanted = (await page.evaluate(`(() => {
    const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const controls = [...document.querySelectorAll('form input:not([type=hidden]), form select, form textarea, form button, pre')]
      .filter((e) => visible(e) && !e.disabled && (e.tagName !== 'PRE' || e.scrollWidth > e.clientWidth));
    controls.forEach((e, i) => e.setAttribute('data-kb', String(i)));
    return controls.map((e) => e.outerHTML.slice(0, 80));
  })()`)) as string[];
  const reached = new Set<string>();
  await page.evaluate('document.activeElement && document.activeElement.blur()');
  for (let i = 0; i < wanted.length + 40 && reached.size < wanted.length; i++) {
    await page.keyboard.press('Tab');
    const kb = (await page.evaluate("document.activeElement?.getAttribute('data-kb') ?? ''")) as string;
    if (kb) reached.add(kb);
  }
  return wanted.filter((_, i) => !reached.has(String(i)));
}

describe('every HTML page, in each state, is accessible and keyboard-usable', () => {
  let h: Harness;
  let browser: Browser;
  let base: string;
  let sub: { key: string; clientId: string };
  let dist: string;
  const seen: string[] = [];

  const buy = (offerId: string) => buyOne(h, dist, offerId);

  beforeAll(async () => {
    h = await createHarness({ worker: true, env: { RATE_LIMIT_PER_SECOND: '100' } });
    await h.operator(OPERATOR.username, OPERATOR.password);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    sub = await h.client('submission');
    dist = await h.key('distribution');
    browser = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** Opens `url` (or runs `go`) in the context and checks the page it lands on. */
  async function check(context: BrowserContext, name: string, go: string | ((page: Page) => Promise<unknown>)) {
    const page = await context.newPage();
    try {
      if (typeof go === 'string') await page.goto(`${base}${go}`);
      else await go(page);
      expect([name, await axeProblems(page)]).toEqual([name, []]);
      expect([name, await unreachedByKeyboard(page)]).toEqual([name, []]);
      seen.push(name);
    } finally {
      await page.close();
    }
  }

  it('the customer voucher page (deal, gift card, redeemed) and its print copy', async () => {
    const advertiser = advertiserNamed('Axe Bistro');
    const deal = await buy(await seedOffer(h, sub.clientId, { advertiser, title: 'Lunch for two', initial_quantity: 5 }));
    const gift = await buy(await seedOffer(h, sub.clientId, { advertiser, title: 'Gift $50', ...GIFT_CARD_50 }));
    const used = await buy(await seedOffer(h, sub.clientId, { advertiser, title: 'Used lunch', initial_quantity: 5 }));
    const adv = await advertiserId(h, sub.key, 'Axe Bistro');
    const redeemed = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/advertisers/${adv}/vouchers/${used.redemption_code}`,
      headers: { 'x-service-api-key': sub.key },
      payload: { voucher: { status: 'redeemed' } },
    });
    expect(redeemed.statusCode).toBe(200);
    const context = await browser.newContext({ viewport: PHONE });
    try {
      for (const [name, v] of [
        ['customer: deal', deal],
        ['customer: gift card', gift],
        ['customer: redeemed', used],
      ] as const)
        await check(context, name, new URL(v.print_url).pathname);
      // The code wraps between its groups at 390 px, never inside one.
      const page = await context.newPage();
      await page.goto(`${base}${new URL(deal.print_url).pathname}`);
      const groups = (await page.locator('.code .group').evaluateAll((els) => els.map((e) => e.getClientRects().length))) as number[];
      expect(groups.every((n) => n === 1)).toBe(true);
      await page.close();
    } finally {
      await context.close();
    }
    const distributor = await browser.newContext({ viewport: PHONE, extraHTTPHeaders: { 'x-service-api-key': dist } });
    try {
      await check(distributor, 'distributor: print page', `${DIST}/vouchers/${deal.id}/print`);
    } finally {
      await distributor.close();
    }
  });

  it('the developer sign-up: the form and the keys', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    try {
      await check(context, 'sign-up: form', '/developer/signup');
      await check(context, 'sign-up: keys', async (page) => {
        await page.goto(`${base}/developer/signup`);
        await page.getByLabel('Email address').fill(`axe-${Date.now()}@example.com`);
        await page.getByRole('button', { name: 'Get my keys' }).click();
        await page.waitForSelector('[data-testid=submission-key]');
      });
    } finally {
      await context.close();
    }
  });

  it('the review console: the queue, an offer, a page that is not there', async () => {
    const id = await seedOffer(h, sub.clientId, { title: 'Offer awaiting review' }, 'pending');
    const context = await browser.newContext({ viewport: PHONE, httpCredentials: OPERATOR });
    try {
      await check(context, 'console: queue', '/ops');
      await check(context, 'console: offer', `/ops/offers/${id}`);
      await check(context, 'console: not found', '/ops/offers/off_none');
    } finally {
      await context.close();
    }
  });

  it('the merchant counter: sign-in, session ended, start page, a voucher, not found, signed out', async () => {
    const advertiser = advertiserNamed('Axe Counter');
    const v = await buy(await seedOffer(h, sub.clientId, { advertiser, title: 'Counter lunch', initial_quantity: 5 }));
    const staff = await createStaff(h, sub.key, { name: 'Kay', advertiser_id: await advertiserId(h, sub.key, 'Axe Counter') });
    const ended = await browser.newContext({ viewport: PHONE });
    try {
      await ended.addCookies([{ name: 'merchant_session', value: 'no-such-session', url: `${base}/merchant` }]);
      await check(ended, 'counter: session ended', `/merchant/vouchers?code=${v.redemption_code}`);
    } finally {
      await ended.close();
    }
    const context = await browser.newContext({ viewport: PHONE });
    try {
      await check(context, 'counter: sign-in', new URL(staff.url).pathname);
      const page = await context.newPage();
      await page.goto(`${base}${new URL(staff.url).pathname}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/merchant`);
      await page.close();
      await check(context, 'counter: start page', '/merchant');
      await check(context, 'counter: voucher', `/merchant/vouchers?code=${encodeURIComponent(v.redemption_code.replace(/-/g, ' '))}`);
      await check(context, 'counter: not found', '/merchant/vouchers?code=NOPE');
      await check(context, 'counter: signed out', async (p) => {
        await p.goto(`${base}/merchant`);
        await p.getByRole('button', { name: 'Sign out' }).click();
        await p.waitForSelector('[data-testid=outcome]');
      });
    } finally {
      await context.close();
    }
  });

  it('walked every page', () => {
    expect(seen).toHaveLength(15);
  });
});
