import type { Staff } from '../../../services/merchant-counter';
import { MERCHANT_PATH } from '../../../services/redemption-staff';
import { VOUCHER_CARD_STYLE } from '../customer/voucher-page';
import { html, htmlDocument, type SafeHtml } from '../ops/html';

/*
 * The counter's page frame: one column that reads at 360 px and grows to a desktop's width, large
 * touch targets, text at 16 px (phones do not zoom into a form), colours with at least 4.5:1
 * contrast. No inline script: the camera's script is an external file (assets.ts).
 */

const STYLE = `
  body { font: 16px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  header { background: #1d2330; color: #fff; padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .3rem 1rem; align-items: center; }
  header .brand { font-weight: 700; color: #fff; text-decoration: none; } header .who { color: #dfe4ee; margin-right: auto; }
  header form { margin: 0; } header button { background: transparent; color: #fff; border-color: #dfe4ee; padding: .3rem .8rem; min-height: auto; }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
  h1 { font-size: 1.3rem; margin: .4rem 0 .8rem; }
  section { background: #fff; border: 1px solid #d8dce3; border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
  section > h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
  label { display: block; font-weight: 600; margin-bottom: .3rem; }
  input { font: inherit; width: 100%; box-sizing: border-box; padding: .6rem; border: 1px solid #5b6475; border-radius: 6px; }
  button { font: inherit; min-height: 2.75rem; padding: .5rem 1.2rem; border-radius: 6px; border: 1px solid #1d2330; background: #fff; color: #1d2330; cursor: pointer; }
  button.primary { background: #1f7a3a; border-color: #1f7a3a; color: #fff; font-weight: 700; width: 100%; font-size: 1.1rem; }
  button.undo { border-color: #a32020; color: #a32020; }
  :focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
  .row { display: flex; gap: .5rem; margin-top: .6rem; flex-wrap: wrap; } .row > * { flex: 1 1 auto; }
  .notice { padding: .8rem 1rem; border-radius: 8px; margin-bottom: 1rem; border: 2px solid; }
  .notice.ok { background: #e6f6ea; border-color: #1f7a3a; } .notice.refused { background: #fdecec; border-color: #a32020; }
  .notice strong { display: block; font-size: 1.15rem; }
  .muted { color: #4f5869; } .hint { font-size: .9rem; color: #4f5869; margin: .3rem 0 0; }
  video { width: 100%; max-height: 50vh; background: #000; border-radius: 6px; margin-top: .6rem; }
  table { border-collapse: collapse; width: 100%; font-size: .95rem; } th, td { text-align: left; padding: .35rem .3rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
  td.code-cell { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
  .undone { text-decoration: line-through; color: #4f5869; }
  ${VOUCHER_CARD_STYLE}
`;

/** A whole counter page; `staff` adds who is signed in and the sign-out button, `script` the camera's script. */
export function counterPage(p: { title: string; body: SafeHtml; staff?: Staff; csrf?: string; script?: boolean }): string {
  return htmlDocument({
    title: `${p.title} · Counter`,
    style: STYLE,
    meta: { referrer: 'same-origin', robots: 'noindex' },
    body: html`<header>
        <a class="brand" href="${MERCHANT_PATH}">Counter</a>
        ${
          p.staff
            ? html`<span class="who" data-testid="who">${p.staff.advertiser_name} · ${p.staff.name}</span>
                <form method="post" action="${MERCHANT_PATH}/sign-out">
                  <input type="hidden" name="csrf" value="${p.csrf}" /><button type="submit">Sign out</button>
                </form>`
            : ''
        }
      </header>
      <main>${p.body}</main>
      ${p.script ? html`<script type="module" src="${MERCHANT_PATH}/assets/scan.js"></script>` : ''}`,
  });
}

/** A short answer on its own page: signed out, refused, not found. */
export function messagePage(title: string, text: string | SafeHtml, staff?: Staff, csrf?: string): string {
  return counterPage({
    title,
    staff,
    csrf,
    body: html`<h1>${title}</h1>
      <p>${text}</p>
      <p><a href="${MERCHANT_PATH}">Back to the counter</a></p>`,
  });
}
