import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeProblems, launchChromium } from '../../setup/chromium';
import { advertiserId, createStaff, type StaffCreated } from '../../setup/counter';
import { writeFakeCamera } from '../../setup/fake-camera';
import { advertiserNamed, buyOne, GIFT_CARD_50, seedOffer, type BoughtVoucher } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

/*
 * The merchant's counter as a shop assistant uses it, in headless Chromium on a listening server:
 * signing in with the link, scanning a real voucher's QR code through Chromium's fake camera (a
 * video made from the customer page's own QR image; Linux Chromium has no BarcodeDetector, so this
 * is the barcode-detector package's WebAssembly reader served by the app), redeeming, being told
 * "already redeemed", undoing, a gift card in two parts, another advertiser's staff finding
 * nothing, axe-core on every page, and screenshots at 360 px and desktop width in
 * test-artifacts/merchant-counter/ (gitignored).
 */

const ARTIFACTS = path.join(__dirname, '..', '..', '..', 'test-artifacts', 'merchant-counter');
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

describe('the merchant counter in headless Chromium', () => {
  let h: Harness;
  let base: string;
  let plain: Browser;
  let withCamera: Browser;
  let sub: { key: string; clientId: string };
  let dist: string;
  let staff: StaffCreated;
  let deal: BoughtVoucher;
  const cspViolations: string[] = [];
  /** Every address the counter's pages asked for: all of them this server's. */
  const requested: string[] = [];

  const buy = (offerId: string) => buyOne(h, dist, offerId, 'Grace Hopper');

  /** The customer page's QR code as a PNG, as the customer's phone shows it. */
  async function customerQr(printUrl: string): Promise<Buffer> {
    const page = await plain.newPage();
    try {
      await page.goto(`${base}${new URL(printUrl).pathname}`);
      return await page.locator('.qr svg').screenshot();
    } finally {
      await page.close();
    }
  }

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    h = await createHarness({ worker: true, env: { RATE_LIMIT_PER_SECOND: '100' } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    sub = await h.client('submission');
    dist = await h.key('distribution');
    const advertiser = advertiserNamed('Bistro Counter');
    const dealId = await seedOffer(h, sub.clientId, {
      advertiser,
      title: 'Two-course lunch',
      initial_quantity: 20,
      restrictions: { valid_days: undefined },
    });
    deal = await buy(dealId);
    giftId = await seedOffer(h, sub.clientId, { advertiser, title: 'Gift card $50', ...GIFT_CARD_50, initial_quantity: 5 });
    staff = await createStaff(h, sub.key, { name: 'Ana', advertiser_id: await advertiserId(h, sub.key, 'Bistro Counter') });
    plain = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
    const camera = path.join(ARTIFACTS, 'camera.y4m');
    writeFakeCamera(await customerQr(deal.print_url), camera);
    withCamera = await launchChromium([
      '--disable-features=LocalNetworkAccessChecks',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${camera}`,
    ]);
  });
  let giftId: string;
  afterAll(async () => {
    await withCamera?.close();
    await plain?.close();
    await h?.close();
  });

  async function newPage(browser: Browser, viewport = PHONE): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    return { context, page };
  }

  const shot = async (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const outcome = (page: Page) => page.getByTestId('outcome').textContent();

  async function signIn(page: Page, s: StaffCreated) {
    await page.goto(`${base}${new URL(s.url).pathname}`);
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/merchant`);
    expect(await page.getByTestId('who').textContent()).toContain(s.name);
  }

  it('signs in, scans the QR code with the camera, redeems, is told "already redeemed", and undoes', async () => {
    const { context, page } = await newPage(withCamera);
    try {
      await signIn(page, staff);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, 'home-360');
      // A second screen of the same counter holds the voucher open before it is redeemed.
      const stale = await context.newPage();

      await page.getByRole('button', { name: 'Scan with camera' }).click();
      await page.waitForURL(/\/merchant\/vouchers\?code=/, { timeout: 60_000 });
      expect(await page.locator('.voucher .code').textContent()).toBe(deal.redemption_code);
      expect(await page.getByTestId('voucher-status').textContent()).toBe('Valid');
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, 'voucher-360');
      await stale.goto(page.url());

      await page.getByRole('button', { name: 'Redeem' }).click();
      expect(await outcome(page)).toContain('Redeemed');
      // The answer takes the focus (a screen reader reads it first), and the page fits 360 px without sideways scrolling.
      await page.waitForFunction("document.activeElement?.getAttribute('data-testid') === 'outcome'");
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, 'redeemed-360');

      await stale.getByRole('button', { name: 'Redeem' }).click();
      expect(await outcome(stale)).toContain('Already redeemed');
      expect(await outcome(stale)).toContain('by Ana at the counter');
      await shot(stale, 'already-redeemed-360');

      await page.getByRole('button', { name: /^Undo the redemption/ }).click();
      expect(await outcome(page)).toContain('Redemption undone');
      expect(await page.getByTestId('voucher-status').textContent()).toBe('Valid');
      expect(cspViolations).toEqual([]);
      // No BarcodeDetector in Linux Chromium: the barcode-detector package read the code, its WebAssembly from this server, nothing from a CDN.
      expect(requested).toContain(`${base}/merchant/assets/zxing_reader.wasm`);
      expect(requested.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('redeems a gift card in two parts, the amount field never above the balance', async () => {
    const card = await buy(giftId);
    const { context, page } = await newPage(plain, DESKTOP);
    try {
      // A new sign-in for this device: each code works once.
      const again = await h.app.inject({
        method: 'POST',
        url: `/submission/beta/redemption_staff/${staff.id}/sign_in`,
        headers: { 'x-service-api-key': sub.key },
      });
      await signIn(page, { ...staff, url: again.json().redemption_staff.sign_in.url });
      await page.getByLabel('Voucher code').fill(card.redemption_code.toLowerCase());
      await page.getByRole('button', { name: 'Look up' }).click();
      const amount = page.getByLabel(/Amount to take/);
      expect(await amount.getAttribute('max')).toBe('50.00');
      await shot(page, 'gift-card-desktop');
      await amount.fill('20');
      await page.getByRole('button', { name: 'Redeem' }).click();
      expect(await outcome(page)).toContain('Balance left: $30.00');
      expect(await page.getByLabel(/Amount to take/).getAttribute('max')).toBe('30.00');
      await page.getByLabel(/Amount to take/).fill('30');
      await page.getByRole('button', { name: 'Redeem' }).click();
      expect(await outcome(page)).toContain('Balance left: $0.00');
      expect(await page.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
      await page.goto(`${base}/merchant`);
      const today = page.getByTestId('today');
      expect(await today.locator('tbody tr').count()).toBe(3);
      expect(await today.textContent()).toContain('$20.00');
      // On a phone the table's codes wrap between their groups, never inside one.
      await page.setViewportSize(PHONE);
      const lines = await today.locator('.code-cell .group').evaluateAll((els) => els.map((e) => e.getClientRects().length));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.every((n) => n === 1)).toBe(true);
      await page.setViewportSize(DESKTOP);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, 'home-desktop');
    } finally {
      await context.close();
    }
  });

  it("another advertiser's staff member finds nothing", async () => {
    const other = await h.client('submission');
    await seedOffer(h, other.clientId, { advertiser: advertiserNamed('Elsewhere Inc') });
    const stranger = await createStaff(h, other.key, { name: 'Bo', advertiser_id: await advertiserId(h, other.key, 'Elsewhere Inc') });
    const { context, page } = await newPage(plain);
    try {
      await signIn(page, stranger);
      await page.getByLabel('Voucher code').fill(deal.redemption_code);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('/merchant/vouchers')),
        page.getByRole('button', { name: 'Look up' }).click(),
      ]);
      expect(res.status()).toBe(404);
      expect(await outcome(page)).toContain('No such voucher');
      expect(await page.locator('.voucher').count()).toBe(0);
      expect(await page.content()).not.toContain('Grace Hopper');
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, 'not-found-360');
      await page.getByRole('button', { name: 'Sign out' }).click();
      expect(await outcome(page)).toContain('You are signed out');
      await page.goto(`${base}/merchant`);
      expect(await page.getByLabel('Sign-in code').count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});
