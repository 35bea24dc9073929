import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalidField } from '../../../domain/failures';
import type { Money } from '../../../domain/money';
import { IdParam } from '../../../schemas/common';
import type { ServiceDeps } from '../../../services/deps';
import { lookUp, redeemAtCounter, todaysRedemptions, undoAtCounter, type CounterVoucher } from '../../../services/merchant-counter';
import { MERCHANT_PATH } from '../../../services/redemption-staff';
import type { RouteApp } from '../operation';
import { messagePage, sendCounterPage } from './frame';
import { isFailure, redeemedOutcome, refusalOutcome, standingOutcome, undoneOutcome } from './outcomes';
import { homePage, lookupPage, signInPage, voucherPage, type Outcome, type Signed } from './pages';
import { csrfMatches, csrfTokenOf, signedInStaff } from './session';

/*
 * The counter's own routes, each for a signed-in staff member only: the start page, a lookup, redeem
 * and undo. A refusal is the API's (services/merchant-counter.ts calls the submission interface's
 * services) shown with its status and the voucher as it is now.
 */

const Lookup = z.object({ code: z.string().trim().max(100).default('') });
const Params = z.object({ id: IdParam });
const Form = z.record(z.string(), z.string());

/** The signed-in staff member, or undefined once the sign-in page (or a CSRF refusal) was sent. */
async function staffOrSignIn(deps: ServiceDeps, request: FastifyRequest, reply: FastifyReply): Promise<Signed | undefined> {
  const signed = await signedInStaff(deps, request);
  if (!signed) {
    await sendCounterPage(reply, request.url === MERCHANT_PATH ? 200 : 401, signInPage());
    return undefined;
  }
  const s = { staff: signed.staff, csrf: csrfTokenOf(signed.token) };
  if (request.method === 'POST' && !csrfMatches(signed.token, (request.body as Record<string, unknown> | undefined)?.csrf)) {
    await sendCounterPage(reply, 403, messagePage('Form expired', 'This form is out of date: look the voucher up again.', s.staff, s.csrf));
    return undefined;
  }
  return s;
}

/** A typed amount in the currency's major units (`12.50`) as minor units, for a gift card. */
function amountOf(text: string | undefined, v: CounterVoucher): Money | undefined {
  const balance = v.view.balance;
  if (!balance) return undefined;
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency: balance.currency_code }).resolvedOptions().maximumFractionDigits ?? 2;
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
    return sendCounterPage(reply, 200, voucherPage(s, done.v, done.outcome));
  } catch (err) {
    if (!isFailure(err)) throw err;
    const now = v && (await lookUp(deps, s.staff, v.id));
    const { status, outcome } = refusalOutcome(err, s.staff, now);
    return sendCounterPage(reply, status, now ? voucherPage(s, now, outcome) : lookupPage(s, outcome, ''));
  }
}

export function counterRoutes(app: RouteApp, deps: ServiceDeps): void {
  app.get(MERCHANT_PATH, { schema: { hide: true } }, async (request, reply) => {
    const s = await staffOrSignIn(deps, request, reply);
    if (s) return sendCounterPage(reply, 200, homePage(s, await todaysRedemptions(deps, s.staff)));
  });

  app.get(`${MERCHANT_PATH}/vouchers`, { schema: { querystring: Lookup, hide: true } }, async (request, reply) => {
    const s = await staffOrSignIn(deps, request, reply);
    if (!s) return;
    const { code } = request.query;
    try {
      const v = await lookUp(deps, s.staff, code);
      return sendCounterPage(reply, 200, voucherPage(s, v, standingOutcome(v)));
    } catch (err) {
      if (!isFailure(err)) throw err;
      const { status, outcome } = refusalOutcome(err, s.staff);
      return sendCounterPage(reply, status, lookupPage(s, outcome, code));
    }
  });

  app.post(`${MERCHANT_PATH}/vouchers/:id/redeem`, { schema: { params: Params, body: Form, hide: true } }, async (request, reply) => {
    const s = await staffOrSignIn(deps, request, reply);
    if (!s) return;
    const attempt = request.body.attempt ?? '';
    return change(deps, s, reply, request.params.id, async (v) => {
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(attempt)) throw invalidField('attempt', 'the form is incomplete: look the voucher up again');
      const after = await redeemAtCounter(deps, s.staff, v.id, attempt, amountOf(request.body.amount, v));
      return { v: after, outcome: redeemedOutcome(after) };
    });
  });

  app.post(`${MERCHANT_PATH}/vouchers/:id/undo`, { schema: { params: Params, body: Form, hide: true } }, async (request, reply) => {
    const s = await staffOrSignIn(deps, request, reply);
    if (!s) return;
    return change(deps, s, reply, request.params.id, async (v) => {
      const after = await undoAtCounter(deps, s.staff, v.id, request.body.redemption_id ?? '');
      return { v: after, outcome: undoneOutcome(after) };
    });
  });
}
