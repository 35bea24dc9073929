import type { FastifySchema } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../../services/deps';

/** Each tag of the OpenAPI documents with its description; a route's tag must be one of these. */
export const TAGS = {
  Offers: 'Advertisers submit and manage offers; publishers search the offers on sale.',
  Advertisers: 'The advertisers a submission client submits offers for, each with a stable id.',
  Attachments: 'Images and documents an offer or comment refers to.',
  Comments: 'The thread between an advertiser and the review team on one offer.',
  Categories: 'The category tree offers are filed under.',
  Accounts: 'The publishers a distribution platform hosts; orders may name one.',
  Orders: 'Orders of vouchers; an order answers with its vouchers once placed.',
  Reservations: 'Units of an offer held for one account (enabled per client).',
  Vouchers: 'Redemption codes issued by orders: read, redeem, cancel.',
  RedemptionStaff: "The advertiser's counter staff: sign-ins to the /merchant redemption page.",
  Events: 'The change feed: the offer events the callbacks carry, paged by cursor in the order they committed.',
  Statements: 'What was sold, cancelled and redeemed in a period, and what each side earns, as JSON, XML or CSV.',
  ApiKeys: "This client's own API keys: listed with their last use, and rolled (a new key; the old one works until the expiry chosen).",
  Developers: 'Sandbox only: a developer signs up for a sandbox key pair by themselves (no API key needed).',
} as const;

/**
 * A route's options with its schema and the OpenAPI face of the route, kept on the route itself so
 * the documents cannot drift from the code: `operationId` is what client generators name the method
 * after (`client.createOrder`), so it is stable API; `summary` titles the operation; the tag groups
 * it in references and clients.
 */
export const operations =
  (tag: keyof typeof TAGS) =>
  <S extends FastifySchema>(operationId: string, summary: string, schema: S) => ({
    schema: { operationId, summary, tags: [tag], ...schema },
  });

/** A route plugin of ours (zod type provider), given the services' dependencies and `O`, its own options. */
export type RoutePlugin<O = unknown> = FastifyPluginAsyncZod<{ deps: ServiceDeps } & O>;

/** The Fastify instance a route plugin gets (zod type provider): for plugins split into route groups. */
export type RouteApp = Parameters<FastifyPluginAsyncZod>[0];
