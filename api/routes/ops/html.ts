import type { FastifyReply } from 'fastify';

/*
 * A tiny HTML builder for the review console: `html` is a tagged template that escapes every
 * interpolated value unless it is already `SafeHtml` (built by `html` itself). Offers are written
 * by advertisers, so nothing they wrote may reach the page unescaped; with this builder the only
 * way to emit raw markup is a template literal in this code base.
 */

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ENTITIES[c]);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Date | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value instanceof Date) return escapeHtml(value.toISOString());
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new SafeHtml(out);
}

const STYLE = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  header { background: #1d2330; color: #fff; padding: .7rem 1.5rem; display: flex; gap: 1.5rem; align-items: baseline; }
  header a { color: #fff; text-decoration: none; font-weight: 600; }
  main { max-width: 70rem; margin: 1.5rem auto; padding: 0 1.5rem; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
  th { background: #eef0f4; font-weight: 600; }
  section { background: #fff; border: 1px solid #e3e6eb; border-radius: 6px; padding: .8rem 1.2rem; margin-bottom: 1rem; }
  h2 { font-size: 1.05rem; margin: .2rem 0 .6rem; }
  dl { display: grid; grid-template-columns: 12rem 1fr; gap: .25rem 1rem; margin: 0; }
  dt { color: #5b6475; } dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  .status { display: inline-block; padding: .1rem .55rem; border-radius: 1rem; background: #e3e6eb; font-weight: 600; }
  .status-approved { background: #d4f3dc; } .status-rejected { background: #fbd9d9; } .status-pending { background: #fff1c2; }
  .notice { padding: .7rem 1rem; border-radius: 6px; margin-bottom: 1rem; background: #e8f0fe; }
  .error { background: #fbd9d9; }
  .actions { display: flex; gap: 2rem; align-items: flex-start; flex-wrap: wrap; }
  textarea { width: 28rem; max-width: 100%; min-height: 4rem; font: inherit; }
  button { font: inherit; padding: .35rem 1rem; border-radius: 4px; border: 1px solid #1d2330; cursor: pointer; }
  button.approve { background: #1f7a3a; color: #fff; border-color: #1f7a3a; } button.reject { background: #a32020; color: #fff; border-color: #a32020; }
  img.media { width: 10rem; height: 7.5rem; object-fit: cover; border: 1px solid #e3e6eb; border-radius: 4px; image-rendering: auto; }
  figure.thumb { display: inline-block; margin: .3rem .8rem .3rem 0; vertical-align: top; } figure.thumb figcaption { font-size: .8rem; max-width: 10rem; overflow-wrap: anywhere; }
  header .operator { margin-left: auto; color: #c9d1e0; } header .muted { color: #c9d1e0; } /* 11:1 on the header's #1d2330 */
  ol.timeline { list-style: none; margin: 0; padding: 0 0 0 1rem; border-left: 3px solid #e3e6eb; }
  ol.timeline li { margin: 0 0 .6rem; position: relative; } ol.timeline li::before { content: ''; position: absolute; left: -1.45rem; top: .45rem; width: .6rem; height: .6rem; border-radius: 50%; background: #5b6475; }
  ol.timeline time { color: #5b6475; font-size: .85rem; display: block; }
  form.filters { display: flex; gap: 1rem; align-items: end; flex-wrap: wrap; margin-bottom: 1rem; } form.filters label { display: flex; flex-direction: column; font-size: .85rem; color: #5b6475; }
  select, input { font: inherit; padding: .2rem .3rem; }
  .muted { color: #5b6475; } nav.pages { margin-top: 1rem; display: flex; gap: 1rem; }
`;

/**
 * A whole server-rendered page: the head every page of ours shares (charset, viewport), the
 * page's own meta tags and style, and its body. The console, the customer's voucher page and the
 * developer sign-up page are each one of these.
 */
export function htmlDocument(d: { title: string; style: string; meta?: Record<string, string>; body: SafeHtml }): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${Object.entries(d.meta ?? {}).map(([name, content]) => html`<meta name="${name}" content="${content}" />`)}
        <title>${d.title}</title>
        <style>
          ${new SafeHtml(d.style)}
        </style>
      </head>
      <body>
        ${d.body}
      </body>
    </html>`.value;
}

/** The page frame: every console page is one of these. */
export function page(title: string, body: SafeHtml, operator?: string): string {
  return htmlDocument({
    title: `${title} · Review console`,
    style: STYLE,
    meta: { referrer: 'same-origin' },
    body: html`<header>
        <a href="/ops">Review console</a><span class="muted">offers waiting for review</span>
        ${operator ? html`<span class="operator" data-testid="operator">signed in as ${operator}</span>` : ''}
      </header>
      <main>${body}</main>`,
  });
}

/** Sends a whole page (any of ours: the console's, the counter's, the sign-up page) with its status. */
export const sendHtmlPage = (reply: FastifyReply, status: number, page: string) =>
  reply.status(status).type('text/html; charset=utf-8').send(page);
