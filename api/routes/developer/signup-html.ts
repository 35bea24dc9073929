import type { ServiceEnvironment } from '../../../domain/environment';
import type { SignupView } from '../../../schemas/developer-signup';
import { html, htmlDocument, SafeHtml } from '../ops/html';

/*
 * The sign-up page's HTML: the form, the keys once signed up, and the refusals. Server-rendered,
 * no script; everything a visitor typed is escaped by `html`.
 */

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  main { max-width: 42rem; margin: 1.5rem auto; padding: 1.2rem 1.5rem; background: #fff; border: 1px solid #d8dce3; border-radius: 8px; }
  h1 { font-size: 1.4rem; margin: 0 0 .4rem; } h2 { font-size: 1.05rem; margin: 1.2rem 0 .3rem; } .muted { color: #5b6475; }
  form { display: grid; gap: .8rem; margin: 1rem 0; } label { display: grid; gap: .2rem; font-weight: 600; }
  input { font: inherit; padding: .4rem .5rem; border: 1px solid #b8bfcc; border-radius: 4px; }
  button { font: inherit; justify-self: start; padding: .45rem 1.2rem; border-radius: 4px; border: 1px solid #1f5fbf; background: #1f5fbf; color: #fff; cursor: pointer; }
  .error { padding: .6rem 1rem; border-radius: 6px; background: #fbd9d9; } .notice { padding: .6rem 1rem; border-radius: 6px; background: #fff1c2; }
  code, pre { font-family: ui-monospace, monospace; } pre { background: #eef0f4; padding: .6rem .8rem; border-radius: 4px; overflow-x: auto; }
  .key { display: block; font: 600 .95rem/1.4 ui-monospace, monospace; background: #eef0f4; padding: .5rem .7rem; border-radius: 4px; overflow-wrap: anywhere; user-select: all; }
  dl { display: grid; grid-template-columns: 9rem 1fr; gap: .25rem 1rem; } dt { color: #5b6475; } dd { margin: 0; overflow-wrap: anywhere; }
`;

function frame(title: string, body: SafeHtml): string {
  return htmlDocument({ title: `${title} · Offer marketplace sandbox`, style: STYLE, body: html`<main>${body}</main>` });
}

/** The sign-up form, with what was typed and why it was refused when it was. */
export function signupFormPage(o: {
  action: string;
  perHour: number;
  email?: string;
  name?: string;
  errors?: string[];
  demo?: DemoKeyShown;
}): string {
  return frame(
    'Get a sandbox key pair',
    html`<h1>Get a sandbox key pair</h1>
      <p>
        One <strong>submission</strong> key (advertisers: submit offers) and one <strong>distribution</strong> key (publishers: search,
        order), for the sandbox only. They are shown once, on the next page.
      </p>
      ${
        o.errors?.length
          ? html`<div class="error" role="alert">
            ${o.errors.map((e) => html`<div>${e}</div>`)}
          </div>`
          : ''
      }
      <form method="post" action="${o.action}">
        <label>Email address <input type="email" name="email" required maxlength="254" autocomplete="email" value="${o.email ?? ''}" /></label>
        <label
          >Name <span class="muted">(optional: your company or app)</span>
          <input type="text" name="name" maxlength="200" autocomplete="organization" value="${o.name ?? ''}"
        /></label>
        <button type="submit">Get my keys</button>
      </form>
      <p class="muted">
        No email is sent and the address is not verified; it is recorded with your keys. One sign-up per address, at most ${o.perHour}
        sign-ups per hour from one network address. Production keys are issued by the service team on application.
      </p>
      ${o.demo ? demoKeyBox(o.demo) : ''}
      <p><a href="/docs">API reference</a></p>`,
  );
}

/** The sandbox's shared demonstration key, what it may do, and a first search with it. */
export interface DemoKeyShown {
  key: string;
  /** The distribution interface's base address. */
  baseUrl: string;
  may: string;
}

/** The demonstration key as a box (the sign-up page and the API reference show it, in the sandbox only). */
export function demoKeyBox(d: DemoKeyShown): SafeHtml {
  return html`<section data-testid="demo-key-box">
    <h2>Just trying? Use the shared demonstration key</h2>
    <code class="key" data-testid="demo-key">${d.key}</code>
    <p class="muted">Shared by everyone trying the sandbox; it may ${d.may}.</p>
    <pre tabindex="0" aria-label="Example request">curl -H "X-SERVICE-API-KEY: ${d.key}" "${d.baseUrl}/offers?postal_code=98101&amp;radius=10"</pre>
  </section>`;
}

/** The keys, shown this once, and how to try them. */
export function signupDonePage(s: SignupView): string {
  const { submission, distribution } = s.keys;
  return frame(
    'Your sandbox keys',
    html`<h1>Your sandbox keys</h1>
      <p class="notice"><strong>Copy them now:</strong> they are shown only this once and stored hashed. Keep them secret.</p>
      <dl>
        <dt>Developer</dt>
        <dd>${s.name ? `${s.name} · ` : ''}${s.email} (<code>${s.id}</code>)</dd>
      </dl>
      <h2>Submission key (advertisers)</h2>
      <code class="key" data-testid="submission-key">${submission.key}</code>
      <p class="muted">client <code>${submission.client_id}</code> · base address <code>${submission.base_url}</code></p>
      <h2>Distribution key (publishers)</h2>
      <code class="key" data-testid="distribution-key">${distribution.key}</code>
      <p class="muted">client <code>${distribution.client_id}</code> · base address <code>${distribution.base_url}</code></p>
      <h2>Try them</h2>
      <pre tabindex="0" aria-label="Example requests">
curl -H "X-SERVICE-API-KEY: ${distribution.key}" "${distribution.base_url}/offers?postal_code=98101&amp;radius=10"
curl -H "X-SERVICE-API-KEY: ${submission.key}" "${submission.base_url}/categories"</pre
      >
      <p><a href="/docs">API reference</a></p>`,
  );
}

/** A refusal (duplicate address, too many sign-ups, bad request) as its own short page. */
export function signupRefusedPage(title: string, text: string, back: string): string {
  return frame(
    title,
    html`<h1>${title}</h1>
      <p>${text}</p>
      <p><a href="${back}">Back to the sign-up form</a></p>`,
  );
}

/** Sign-up is off here: production, or DEVELOPER_SIGNUP=off. */
export function signupNotOfferedPage(environment: ServiceEnvironment): string {
  return frame(
    'Sign-up not offered',
    html`<h1>Developer sign-up is not offered here</h1>
      <p>
        ${
          environment === 'production'
            ? 'This is the production environment: its keys are issued by the service team on application. Sign up in the sandbox to get sandbox keys.'
            : 'Sign-up is turned off in this deployment; ask the service team for a key.'
        }
      </p>`,
  );
}

/** The demonstration key above the API reference (Swagger UI's page, not ours: its own inline styles). */
export function demoKeyNotice(d: DemoKeyShown, signupOpen: boolean): string {
  return html`<aside
    data-testid="demo-key-notice"
    style="font: 15px/1.5 system-ui, sans-serif; max-width: 1400px; margin: 1rem auto 0; padding: .8rem 1.2rem; background: #fff1c2; border-radius: 6px; box-sizing: border-box"
  >
    <strong>Sandbox: try it with the shared demonstration key</strong>
    <code style="display: block; font: 600 .95rem ui-monospace, monospace; margin: .3rem 0; overflow-wrap: anywhere; user-select: all" data-testid="demo-key"
      >${d.key}</code
    >
    It may ${d.may}. Choose the distribution interface, press Authorize and paste it.
    ${signupOpen ? html`For keys of your own, <a href="/developer/signup">sign up</a>.` : ''}
  </aside>`.value;
}
