import crypto from 'node:crypto';
import type { CounterRedemption, CounterVoucher, Staff } from '../../../services/merchant-counter';
import { MERCHANT_PATH } from '../../../services/redemption-staff';
import { formatMoney as money, majorUnits } from '../../../domain/money';
import { localTime } from '../../../domain/time-zones';
import { codeGroups, standing, voucherCard } from '../customer/voucher-page';
import { html, type SafeHtml } from '../ops/html';
import { counterPage } from './frame';

/*
 * The counter's pages: sign in; look a voucher up (camera or typed); the voucher as its customer
 * sees it, with what this counter may do to it; the day's redemptions. Every form posts to this
 * origin with the session's CSRF token; each redeem form carries a fresh attempt id, the
 * Idempotency-Key of its redemption, so a double tap or a reload redeems once.
 */

export interface Signed {
  staff: Staff;
  csrf: string;
}

/**
 * The sign-in form; `code` pre-filled from a sign-in link, `notice` why the clerk is here (the
 * session ended, signed out), `next` the counter page signing in leads back to (sign-in.ts checks it).
 */
export function signInPage(opts: { code?: string; error?: string; notice?: string; next?: string } = {}): string {
  return counterPage({
    title: 'Sign in',
    body: html`<h1>Sign in to the counter</h1>
      ${opts.error ? html`<div class="notice refused" role="alert"><strong>${opts.error}</strong></div>` : ''}
      ${opts.notice ? html`<div class="notice refused" role="alert" data-testid="outcome"><strong>${opts.notice}</strong></div>` : ''}
      <section>
        <form method="post" action="${MERCHANT_PATH}/sign-in">
          ${opts.next ? html`<input type="hidden" name="next" value="${opts.next}" />` : ''}
          <label for="sign-in-code">Sign-in code</label>
          <input id="sign-in-code" name="code" value="${opts.code}" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength="40" />
          <p class="hint">The one-time code (or link) from whoever manages your shop's offers. It works once, on this device.</p>
          <div class="row"><button class="primary" type="submit">Sign in</button></div>
        </form>
      </section>`,
  });
}

/** Looking up the next voucher: the camera (shown by its script) or the typed code. */
function lookupSection(code = ''): SafeHtml {
  return html`<section aria-labelledby="find">
    <h2 id="find">Find a voucher</h2>
    <form id="lookup" method="get" action="${MERCHANT_PATH}/vouchers">
      <label for="code">Voucher code</label>
      <input id="code" name="code" value="${code}" autocomplete="off" autocapitalize="characters" spellcheck="false" required maxlength="100" />
      <div class="row">
        <button type="submit">Look up</button>
        <button type="button" id="scan" hidden>Scan with camera</button>
      </div>
      <p class="hint" id="scan-status" role="status" aria-live="polite"></p>
      <video id="camera" hidden muted playsinline aria-label="Camera preview"></video>
    </form>
  </section>`;
}

/** A time of day on the shop's clock (the advertiser's time zone). */
const time = (d: Date, s: Signed) => localTime(d, s.staff.advertiser_time_zone);
const amountOf = (r: Pick<CounterRedemption, 'amount' | 'currency_code'>) =>
  r.amount !== null && r.currency_code !== null ? money({ currency_code: r.currency_code, amount: r.amount }) : 'whole voucher';

function todaySection(s: Signed, rows: CounterRedemption[]): SafeHtml {
  return html`<section aria-labelledby="today">
    <h2 id="today">Today at this counter (${s.staff.advertiser_time_zone})</h2>
    ${
      rows.length === 0
        ? html`<p class="muted">No redemptions yet today.</p>`
        : html`<table data-testid="today">
            <thead><tr><th scope="col">Time</th><th scope="col">Offer</th><th scope="col">Code</th><th scope="col">Amount</th></tr></thead>
            <tbody>
              ${rows.map(
                (r) => html`<tr class="${r.rolled_back_at ? 'undone' : ''}">
                  <td>${time(r.redeemed_at, s)}</td>
                  <td><a href="${MERCHANT_PATH}/vouchers?code=${encodeURIComponent(r.redemption_code)}">${r.title}</a></td>
                  <td class="code-cell">${codeGroups(r.redemption_code)}</td>
                  <td>${amountOf(r)}${r.rolled_back_at ? html` <span>(undone)</span>` : ''}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

/** The counter's start page. */
export function homePage(s: Signed, today: CounterRedemption[]): string {
  return counterPage({
    title: 'Counter',
    staff: s.staff,
    csrf: s.csrf,
    script: true,
    body: html`<h1>Redeem a voucher</h1>
      ${lookupSection()} ${todaySection(s, today)}`,
  });
}

/** What happened, said plainly at the top of the page: a success or a refusal. */
export interface Outcome {
  ok: boolean;
  title: string;
  text?: string;
}

function outcomeBox(o: Outcome | undefined): SafeHtml | string {
  if (!o) return '';
  return html`<div class="notice ${o.ok ? 'ok' : 'refused'}" role="${o.ok ? 'status' : 'alert'}" data-testid="outcome" tabindex="-1">
    <strong>${o.title}</strong>${o.text ? html`<span>${o.text}</span>` : ''}
  </div>`;
}

/** The one button (a gift card: with the amount, at most the balance), when the voucher can be redeemed here. */
function redeemForm(v: CounterVoucher, csrf: string): SafeHtml | string {
  if (standing(v.view).key !== 'acquired' || v.notHere) return '';
  const balance = v.view.balance;
  const major = (n: number) => majorUnits(n, balance?.currency_code ?? 'USD');
  return html`<form method="post" action="${MERCHANT_PATH}/vouchers/${v.id}/redeem">
    <input type="hidden" name="csrf" value="${csrf}" />
    <input type="hidden" name="attempt" value="${crypto.randomBytes(16).toString('base64url')}" />
    ${
      balance
        ? html`<label for="amount">Amount to take (${balance.currency_code}, at most ${money(balance)})</label>
            <input id="amount" name="amount" type="number" inputmode="decimal" required min="${major(1)}" max="${major(balance.amount)}" step="${major(1)}" />`
        : ''
    }
    <div class="row"><button class="primary" type="submit">Redeem</button></div>
  </form>`;
}

/** Undo buttons for this staff member's live redemptions of the voucher still within the rollback window. */
function undoForms(v: CounterVoucher, s: Signed): SafeHtml[] {
  const closes = (r: { redeemed_at: Date }) => r.redeemed_at.getTime() + v.rollbackHours * 3_600_000;
  return v.voucher.redemptions
    .filter((r) => r.staff_id === s.staff.id && !r.rolled_back_at && closes(r) > Date.now())
    .map(
      (r) => html`<form method="post" action="${MERCHANT_PATH}/vouchers/${v.id}/undo" class="row">
        <input type="hidden" name="csrf" value="${s.csrf}" /><input type="hidden" name="redemption_id" value="${r.id}" />
        <button class="undo" type="submit">Undo the redemption of ${time(r.redeemed_at, s)}${r.amount !== null ? ` (${amountOf(r)})` : ''}</button>
      </form>`,
    );
}

/** One voucher at the counter, with the outcome of what was just done to it. */
export function voucherPage(s: Signed, v: CounterVoucher, outcome?: Outcome): string {
  return counterPage({
    title: v.view.title,
    staff: s.staff,
    csrf: s.csrf,
    script: true,
    body: html`<h1>Voucher</h1>
      ${outcomeBox(outcome)}
      ${v.notHere ? html`<div class="notice refused" role="alert"><strong>Not at this counter</strong><span>${v.notHere}</span></div>` : ''}
      <section aria-label="The voucher">${voucherCard(v.view, true)} ${redeemForm(v, s.csrf)} ${undoForms(v, s)}</section>
      ${lookupSection()}`,
  });
}

/** The lookup found nothing (or a refusal before any voucher was found): the outcome above the lookup form. */
export function lookupPage(s: Signed, outcome: Outcome, code: string): string {
  return counterPage({
    title: outcome.title,
    staff: s.staff,
    csrf: s.csrf,
    script: true,
    body: html`<h1>Redeem a voucher</h1>
      ${outcomeBox(outcome)} ${lookupSection(code)}`,
  });
}
