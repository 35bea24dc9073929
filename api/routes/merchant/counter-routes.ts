import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalidField } from '../../../domain/failures';
import { currencyDigits, type Money } from '../../../domain/money';
import { IdParams } from '../../../schemas/common';
import type { ServiceDeps } from '../../../services/deps';
import { lookUp, redeemAtCounter, todaysRedemptions, undoAtCounter, type CounterVoucher } from '../../../services/merchant-counter';
import { MERCHANT_PATH } from '../../../services/redemption-staff';
import type { RouteApp } from '../operation';
import { sendHtmlPage } from '../ops/html';
import { messagePage } from './frame';
import { isFailure, redeemedOutcome, refusalOutcome, standingOutcome, undoneOutcome } from './outcomes';
import { homePage, lookupPage, signInPage, voucherPage, type Outcome, type Signed } from './pages';
import { csrfMatches, csrfTokenOf, sessionToken, signedInStaff } from './session';

/*
 * The counter's own routes, each for a signed-in staff member only: the start page, a lookup, redeem
 * and undo. A refusal is the API's (services/merchant-counter.ts calls the submission interface's
 * services) shown with its status and the voucher as it is now.
 */

const Lookup = z.object({ code: z.string().trim().max(100).default('') });
const Form = z.record(z.string(), z.string());

/** Where signing in again leads back to: the voucher the clerk had open (or was redeeming), else the start page. */
function returnTo(request: FastifyRequest): string | undefined {
  const id = (request.params as { id?: string } | undefined)?.id;
  if (id) return `${MERCHANT_PATH}/vouchers?code=${encodeURIComponent(id)}`;
  return request.url.startsWith(`${MERCHANT_PATH}/vouchers?`) ? request.url : undefined;
}

/** What the sign-in page says to a clerk whose session ended (expired, revoked, signed out elsewhere) mid-task. */
const endedNotice = (request: FastifyRequest) =>
  request.method === 'POST'
    ? 'Your session ended, so nothing was redeemed or undone. Sign in again to go back to the voucher.'
    : 'Your session ended. Sign in again to go on.';

const signedOf = new WeakMap<FastifyRequest, Signed>();
/** The staff member the session hook found for this request (every handler of counterRoutes runs after it). */
const signed = (request: FastifyRequest): Signed => signedOf.get(request)!;

/**
 * The one session check of the counter's routes: a request without a live session gets the sign-in
 * page (200 on the start page, else 401), saying the session ended when it carried one, and
 * leading back to the voucher; a form without the session's CSRF token gets 403.
 */
function sessionHook(deps: ServiceDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await signedInStaff(deps, request);
    if (!found) {
      const ended = sessionToken(request) !== undefined;
      const page = signInPage({ notice: ended ? endedNotice(request) : undefined, next: returnTo(request) });
      return sendHtmlPage(reply, request.url === MERCHANT_PATH ? 200 : 401, page);
    }
    const s = { staff: found.staff, csrf: csrfTokenOf(found.token) };
    if (request.method === 'POST' && !csrfMatches(found.token, (request.body as Record<string, unknown> | undefined)?.csrf))
      return sendHtmlPage(reply, 403, messagePage('Form expired', 'This form is out of date: look the voucher up again.', s.staff, s.csrf));
    signedOf.set(request, s);
  };
}

/** A typed amount in the currency's major units (`12.50`) as minor units, for a gift card. */
function amountOf(text: string | undefined, v: CounterVoucher): Money | undefined {
  const balance = v.view.balance;
  if (!balance) return undefined;
  const digits = currencyDigits(balance.currency_code);
  const m = new RegExp(`^(\\d{1,12})(?:[.,](\\d{1,${Math.max(digits, 1)}}))?$`).exec((text ?? '').trim());
  if (!m || (digits === 0 && m[2]))
    throw invalidField('amount', `enter the amount in ${balance.currency_code}, e.g. ${digits ? '12.50' : '1250'}`);
  const amount = Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || 0);
  if (amount < 1) throw invalidField('amount', 'enter an amount above zero');
  return { currency_code: balance.currency_code, amount };
}

/** Runs a change to the voucher and shows the voucher with its outcome, or the refusal with the API's status. */
async function change(
  deps: ServiceDeps,
  s: Signed,
  reply: FastifyReply,
  voucherId: string,
  act: (v: CounterVoucher) => Promise<{ v: CounterVoucher; outcome: Outcome }>,
) {
  let v: CounterVoucher | undefined;
  try {
    v = await lookUp(deps, s.staff, voucherId);
    const done = await act(v);
    return sendHtmlPage(reply, 200, voucherPage(s, done.v, done.outcome));
  } catch (err) {
    if (!isFailure(err)) throw err;
    const now = v && (await lookUp(deps, s.staff, v.id));
    const { status, outcome } = refusalOutcome(err, s.staff, now);
    return sendHtmlPage(reply, status, now ? voucherPage(s, now, outcome) : lookupPage(s, outcome, ''));
  }
}

/** The counter's routes, registered in a scope of their own so that the session hook guards them all and nothing else. */
export function counterRoutes(app: RouteApp, deps: ServiceDeps): void {
  app.addHook('preHandler', sessionHook(deps));
  app.get(MERCHANT_PATH, { schema: { hide: true } }, async (request, reply) => {
    const s = signed(request);
    return sendHtmlPage(reply, 200, homePage(s, await todaysRedemptions(deps, s.staff)));
  });

  app.get(`${MERCHANT_PATH}/vouchers`, { schema: { querystring: Lookup, hide: true } }, async (request, reply) => {
    const s = signed(request);
    const { code } = request.query;
    try {
      const v = await lookUp(deps, s.staff, code);
      return sendHtmlPage(reply, 200, voucherPage(s, v, standingOutcome(v, s.staff)));
    } catch (err) {
      if (!isFailure(err)) throw err;
      const { status, outcome } = refusalOutcome(err, s.staff);
      return sendHtmlPage(reply, status, lookupPage(s, outcome, code));
    }
  });

  app.post(`${MERCHANT_PATH}/vouchers/:id/redeem`, { schema: { params: IdParams, body: Form, hide: true } }, async (request, reply) => {
    const s = signed(request);
    const attempt = request.body.attempt ?? '';
    return change(deps, s, reply, request.params.id, async (v) => {
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(attempt)) throw invalidField('attempt', 'the form is incomplete: look the voucher up again');
      const after = await redeemAtCounter(deps, s.staff, v.id, attempt, amountOf(request.body.amount, v));
      return { v: after, outcome: redeemedOutcome(after) };
    });
  });

  app.post(`${MERCHANT_PATH}/vouchers/:id/undo`, { schema: { params: IdParams, body: Form, hide: true } }, async (request, reply) => {
    const s = signed(request);
    return change(deps, s, reply, request.params.id, async (v) => {
      const after = await undoAtCounter(deps, s.staff, v.id, request.body.redemption_id ?? '');
      return { v: after, outcome: undoneOutcome(after) };
    });
  });
}
