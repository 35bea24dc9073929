import { html, type SafeHtml } from './html';

/*
 * The console's short pages: the gates' refusals and the error pages, each a title and a body.
 */

export interface MessagePage {
  title: string;
  body: SafeHtml;
}

/** No operator credential configured: the console is closed. */
export const closedPage = (): MessagePage => ({
  title: 'Console closed',
  body: html`<h1>Review console closed</h1>
    <p>
      No operator exists yet. Add one with <code>npm run admin -- ops users add NAME</code> (it asks for the password; the console
      opens at once).
    </p>`,
});

/** Too many wrong sign-ins from this address. */
export const tooManyAttemptsPage = (waitSeconds: number): MessagePage => ({
  title: 'Too many attempts',
  body: html`<h1>Too many wrong sign-ins</h1>
    <p>Try again in ${waitSeconds} seconds.</p>`,
});

/** No or a wrong credential. */
export const signInPage = (): MessagePage => ({
  title: 'Sign in',
  body: html`<h1>Sign in required</h1>
    <p>Sign in to the review console with your own operator name and password.</p>`,
});

/** A state-changing request that did not come from the console's own pages. */
export const crossSiteRefusedPage = (refused: string): MessagePage => ({
  title: 'Refused',
  body: html`<h1>Request refused</h1>
    <p>Decisions are only accepted from the console's own pages (${refused}).</p>`,
});

/** A refusal the operator can act on (unknown offer, offer no longer pending, missing reason). */
export const refusalPage = (title: string, message: string): MessagePage => ({
  title,
  body: html`<h1>${title}</h1>
    <p>${message}</p>
    <p><a href="/ops">Back to the queue</a></p>`,
});

/** Any other failure; `text` is the error's message for a 4xx, a generic one for a 5xx. */
export const errorPage = (status: number, text: string, requestId: string): MessagePage => ({
  title: 'Error',
  body: html`<h1>Error ${status}</h1>
    <p>${text}</p>
    <p class="muted">request ${requestId}</p>
    <p><a href="/ops">Back to the queue</a></p>`,
});

/** No such page. */
export const notFoundPage = (url: string): MessagePage => ({
  title: 'Not found',
  body: html`<h1>Not found</h1>
    <p>No page ${url}.</p>
    <p><a href="/ops">Back to the queue</a></p>`,
});
