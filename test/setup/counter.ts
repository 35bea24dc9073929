import type { Harness } from './harness';
import { SUB } from './paths';

/*
 * The merchant's counter driven through app.inject, as a browser on the counter's own origin would
 * send its forms (the Origin header, the session cookie, the page's CSRF token and attempt id).
 */

export const ORIGIN = 'http://localhost:80';

export interface StaffCreated {
  id: string;
  name: string;
  code: string;
  url: string;
}

/** Creates a staff member with the submission API (`key`) for one of its advertisers. */
export async function createStaff(h: Harness, key: string, body: Record<string, unknown>): Promise<StaffCreated> {
  const res = await h.app.inject({
    method: 'POST',
    url: `${SUB}/redemption_staff`,
    headers: { 'x-service-api-key': key },
    payload: { redemption_staff: body },
  });
  if (res.statusCode !== 200) throw new Error(`create staff: ${res.statusCode} ${res.body}`);
  const s = res.json().redemption_staff;
  return { id: s.id, name: s.name, code: s.sign_in.code, url: s.sign_in.url };
}

/** The id of the advertiser of this client with this name (offers create their advertisers). */
export async function advertiserId(h: Harness, key: string, name: string): Promise<string> {
  const res = await h.app.inject({ method: 'GET', url: `${SUB}/advertisers?per_page=100`, headers: { 'x-service-api-key': key } });
  const found = (res.json().advertisers as { id: string; name: string }[]).find((a) => a.name === name);
  if (!found) throw new Error(`no advertiser ${name}`);
  return found.id;
}

/** A signed-in counter: its cookie, and form posts with the page's tokens. */
export class Counter {
  constructor(
    private readonly h: Harness,
    readonly cookie: string,
  ) {}

  static async signIn(h: Harness, code: string, remoteAddress = '127.0.0.1'): Promise<Counter> {
    const res = await h.app.inject({
      method: 'POST',
      url: '/merchant/sign-in',
      headers: { origin: ORIGIN },
      payload: { code },
      remoteAddress,
    });
    if (res.statusCode !== 303) throw new Error(`sign-in: ${res.statusCode}`);
    return new Counter(h, String(res.headers['set-cookie']).split(';')[0]);
  }

  get(url: string) {
    return this.h.app.inject({ method: 'GET', url, headers: { cookie: this.cookie } });
  }

  /** Posts a form (urlencoded) from the counter's origin. */
  post(url: string, fields: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN }) {
    return this.h.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(fields).toString(),
    });
  }

  /** The page's CSRF token and a fresh attempt id, read from a page as the browser would. */
  async tokens(page = '/merchant'): Promise<{ csrf: string; attempt: string }> {
    const body = (await this.get(page)).body;
    const csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
    const attempt = /name="attempt" value="([^"]+)"/.exec(body)?.[1] ?? `a${Math.random().toString(36).slice(2)}xxxxxxxxxxxxxxxx`;
    return { csrf, attempt };
  }

  lookup(code: string) {
    return this.get(`/merchant/vouchers?code=${encodeURIComponent(code)}`);
  }

  async redeem(voucherId: string, amount?: string) {
    const { csrf, attempt } = await this.tokens();
    return this.post(`/merchant/vouchers/${voucherId}/redeem`, { csrf, attempt, ...(amount ? { amount } : {}) });
  }

  async undo(voucherId: string, redemptionId: string) {
    const { csrf } = await this.tokens();
    return this.post(`/merchant/vouchers/${voucherId}/undo`, { csrf, redemption_id: redemptionId });
  }
}
