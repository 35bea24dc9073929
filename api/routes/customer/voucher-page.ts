import bwipjs from 'bwip-js';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { customerVoucher, type CustomerVoucher } from '../../../services/vouchers';
import { utcDay } from '../../../domain/dates';
import { formatMoney } from '../../../domain/money';
import { isVoucherExpired } from '../../../domain/voucher-expiry';
import type { Location } from '../../../domain/location';
import { IdParam } from '../../../schemas/common';
import { CUSTOMER_VOUCHER_PATH } from '../../../schemas/voucher';
import { rateLimitPlugin } from '../../plugins/rate-limit';
import { html, htmlDocument, SafeHtml } from '../ops/html';
import type { RoutePlugin } from '../operation';

/*
 * The customer's voucher page (print_url): no API key, the unguessable page token in the address
 * is the key, and rotating it (POST /distribution/beta/vouchers/:id/print_url) revokes the old
 * address. The barcodes are inline SVG drawn by bwip-js, so the page is one self-contained
 * document that prints and scans without any other request.
 */

/** The voucher's own look: the customer's page and the merchant's counter show it alike. */
export const VOUCHER_CARD_STYLE = `
  .voucher h1, .voucher h2.title { font-size: 1.4rem; margin: 0 0 .2rem; } .muted { color: #5b6475; }
  .code { font: 600 1.6rem/1.2 ui-monospace, monospace; letter-spacing: .08em; margin: 1rem 0 .4rem; overflow-wrap: anywhere; }
  .group { white-space: nowrap; } /* a code (codeGroups) wraps between its groups, never inside one */
  .barcode svg { width: 100%; max-width: 24rem; height: auto; } .qr svg { width: 9rem; height: 9rem; }
  .codes { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; }
  .status { padding: .6rem 1rem; border-radius: 6px; font-weight: 700; font-size: 1.2rem; }
  .status-acquired { background: #d4f3dc; } .status-redeemed, .status-expired { background: #e3e6eb; } .status-cancelled { background: #fbd9d9; }
  .void { color: #4f5869; text-decoration: line-through; } /* a used code stays readable (7:1), struck through */
  .voucher h2, .voucher h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; } ul { padding-left: 1.2rem; margin: 0; } p.fine { white-space: pre-wrap; }
`;

const STYLE = `
  body { font: 16px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  main { max-width: 36rem; margin: 1.5rem auto; padding: 1.2rem 1.5rem; background: #fff; border: 1px solid #d8dce3; border-radius: 8px; }
  ${VOUCHER_CARD_STYLE}
  @media print {
    body { background: #fff; } main { border: 0; margin: 0; max-width: none; }
    a { color: inherit; text-decoration: none; }
  }
`;

/** A barcode of the value as inline SVG, or nothing if the value cannot be drawn in that symbology. */
function barcodeSvg(bcid: 'code128' | 'qrcode', text: string): SafeHtml | null {
  try {
    // bwip-js draws the human-readable text as paths: nothing of `text` reaches the markup as text.
    return new SafeHtml(
      bwipjs.toSVG(bcid === 'code128' ? { bcid, text, scale: 2, height: 14, includetext: true } : { bcid, text, scale: 3 }),
    );
  } catch {
    return null;
  }
}

const address = (l: Location) =>
  [l.address_line_1, l.address_line_2, [l.city, l.state_code].filter(Boolean).join(', '), l.postal_code, l.country_code]
    .filter(Boolean)
    .join(' · ');

/** A code with each dash-separated group kept on one line (a very long advertiser's code may still wrap anywhere). */
export const codeGroups = (code: string): SafeHtml[] =>
  code.split(/(?<=-)/).map((part) => (part.length <= 12 ? html`<span class="group">${part}</span>` : html`${part}`));

/** What the voucher is now, as the customer reads it: usable, or redeemed, cancelled, expired. */
export function standing(v: CustomerVoucher): { key: string; text: string } {
  if (v.status === 'redeemed') return { key: 'redeemed', text: `Redeemed${v.redeemed_at ? ` on ${utcDay(v.redeemed_at)}` : ''}` };
  if (v.status === 'cancelled')
    return { key: 'cancelled', text: `Cancelled${v.cancelled_at ? ` on ${utcDay(v.cancelled_at)}` : ''}: no longer valid` };
  if (isVoucherExpired(v.expiration_date ?? null, utcDay())) return { key: 'expired', text: `Expired on ${v.expiration_date}` };
  return { key: 'acquired', text: 'Valid' };
}

/**
 * The voucher as its customer sees it: offer, status, balance, code, validity, where, conditions.
 * `counter`: as the merchant's counter shows it (a section under the page's own h1, no barcodes:
 * the customer is holding them up).
 */
export function voucherCard(v: CustomerVoucher, counter = false): SafeHtml {
  const state = standing(v);
  const usable = state.key === 'acquired';
  const code128 = usable && !counter ? barcodeSvg('code128', v.barcode) : null;
  const qr = usable && !counter ? barcodeSvg('qrcode', v.redemption_code) : null;
  const h = (text: SafeHtml | string) => (counter ? html`<h3>${text}</h3>` : html`<h2>${text}</h2>`);
  return html`<div class="voucher">
    ${counter ? html`<h2 class="title">${v.title}</h2>` : html`<h1>${v.title}</h1>`}
    <div class="muted">${v.advertiser_name} · for ${v.customer_name}</div>
    <div class="status status-${state.key}" data-testid="voucher-status">${state.text}</div>
    ${
      // A cancelled card has nothing left to spend: its page shows no balance.
      v.balance && v.value && state.key !== 'cancelled'
        ? html`<p class="balance">Balance: <strong>${formatMoney(v.balance)}</strong> of ${formatMoney(v.value)}</p>`
        : ''
    }
    <div class="code ${usable ? '' : 'void'}">${codeGroups(v.redemption_code)}</div>
    ${
      code128 || qr
        ? html`<div class="codes">
          ${code128 ? html`<div class="barcode" role="img" aria-label="Code 128 barcode ${v.barcode}">${code128}</div>` : ''}
          ${qr ? html`<div class="qr" role="img" aria-label="QR code ${v.redemption_code}">${qr}</div>` : ''}
        </div>`
        : ''
    }
    <p>
      ${v.expiration_date ? html`Valid until <strong>${v.expiration_date}</strong>` : 'No expiry date'}${
        v.activation_date ? html`, not before <strong>${v.activation_date}</strong>` : ''
      }.
    </p>
    ${
      v.redemption_locations.length
        ? html`${h('Where to redeem')}
          <ul>
            ${v.redemption_locations.map((l) => html`<li>${address(l)}</li>`)}
          </ul>`
        : ''
    }
    ${
      v.restrictions.length
        ? html`${h('Conditions')}
          <ul class="conditions">
            ${v.restrictions.map((r) => html`<li>${r}</li>`)}
          </ul>`
        : ''
    }
    ${v.fine_print ? html`${h('Fine print')}<p class="fine">${v.fine_print}</p>` : ''}
  </div>`;
}

/** The customer's voucher as one printable HTML page. */
export function customerVoucherPage(v: CustomerVoucher): string {
  return htmlDocument({
    title: `Voucher: ${v.title}`,
    style: STYLE,
    meta: { robots: 'noindex' },
    body: html`<main>${voucherCard(v)}</main>`,
  });
}

const Params = z.object({ token: IdParam });

/*
 * A voucher page holds a redeemable code, and its address may be the credential: never cached,
 * never sent on as a referrer, never framed (clickjacking), no script, nothing loaded from
 * elsewhere. The customer's page and the distributor's print page send the same headers.
 */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Sends a voucher page with the headers every voucher page carries. */
export function sendVoucherPage(reply: FastifyReply, page: string): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'private, no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', PAGE_CSP)
    .send(page);
}

/** `GET /customer/vouchers/:token`: the page print_url points to. */
export const customerVoucherRoutes: RoutePlugin = async (app, { deps }) => {
  // Limited per address like keyless requests elsewhere: tokens are unguessable, but not worth guessing at speed either.
  await rateLimitPlugin(app, { perSecond: deps.config.RATE_LIMIT_PER_SECOND, counts: deps.rateLimits });
  app.get(`${CUSTOMER_VOUCHER_PATH}/:token`, { schema: { params: Params, hide: true } }, async (request, reply) =>
    sendVoucherPage(reply, customerVoucherPage(await customerVoucher(deps, request.params.token))),
  );
};
