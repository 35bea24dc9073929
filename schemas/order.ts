import { z } from 'zod';
import { IdParam, iso, isoOrNull, Location, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';
import { toVoucher, Voucher } from './voucher';
import type { OrderSnapshot } from '../domain/orders';
import type { OrderWithDetails } from '../store/orders';

export const ORDER_STATUSES = ['active', 'cancelled'] as const;
export const OrderStatus = z.enum(ORDER_STATUSES);

/** Units one order may buy in all: each unit is a voucher row the order's answer carries. */
export const MAX_UNITS_PER_ORDER = 500;
/** Vouchers shown per order in `GET /orders`: the whole list is on `GET /orders/:id` (≤ MAX_UNITS_PER_ORDER). */
export const LIST_VOUCHERS_PER_ORDER = 10;

export const OrderItem = z.object({
  offer_id: z.string().min(1).max(64),
  quantity: z.number().int().min(1).max(100),
});

/** A person's name: letters required, no control characters (spec §4.6 rule 1). */
const CustomerName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/\p{L}/u, 'must contain letters')
  .refine((s) => !/\p{Cc}/u.test(s), 'must not contain control characters');

/** `POST /orders` (spec §4.6): order_number unique per client, each item with offer_id and quantity. */
export const OrderCreate = z
  .object({
    order_number: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces'),
    customer_name: CustomerName,
    customer_reference: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .refine((s) => !/\p{Cc}/u.test(s), 'must not contain control characters')
      .describe(
        'Your own id for the customer: restrictions.limit_per_customer counts by it (else by customer_name folded: case, spacing, invisible characters and look-alike letters do not tell customers apart)',
      )
      .optional(),
    account_id: z.string().min(1).max(64).optional(),
    application_id: z.string().min(1).max(100).optional(),
    shipping_address: Location.optional(),
    items: z.array(OrderItem).min(1).max(50),
  })
  .superRefine((o, ctx) => {
    const units = o.items.reduce((sum, it) => sum + it.quantity, 0);
    if (units > MAX_UNITS_PER_ORDER)
      ctx.addIssue({
        code: 'custom',
        path: ['items'],
        message: `an order buys at most ${MAX_UNITS_PER_ORDER} units in all; this one asks for ${units}`,
      });
    const seen = new Set<string>();
    o.items.forEach((it, i) => {
      if (seen.has(it.offer_id))
        ctx.addIssue({ code: 'custom', path: ['items', i, 'offer_id'], message: 'each offer appears once; raise its quantity instead' });
      seen.add(it.offer_id);
    });
  });
export type OrderCreate = z.infer<typeof OrderCreate>;

export const OrderCreateBody = wrappedBody('order', OrderCreate).meta({
  examples: [{ order: { order_number: 'blog-0001', customer_name: 'Ada Lovelace', items: [{ offer_id: 'ofr_8cJ2kq', quantity: 2 }] } }],
});
export const OrderUpdateBody = wrappedBody('order', z.object({ status: z.literal('cancelled') })).meta({
  examples: [{ order: { status: 'cancelled' } }],
});

/**
 * The order as GET and POST answer it, with all its vouchers; in `GET /orders` lists only the
 * first LIST_VOUCHERS_PER_ORDER (voucher_count says how many there are).
 */
export const Order = z.object({
  id: z.string(),
  order_number: z.string(),
  status: OrderStatus,
  items: z.array(OrderItem),
  account_id: z.string().nullable(),
  application_id: z.string().nullable(),
  customer_name: z.string(),
  customer_reference: z.string().nullable(),
  purchased_at: Timestamp,
  cancelled_at: Timestamp.nullable(),
  shipping_address: Location.nullable(),
  /** Physical shipments are not part of this service's digital offers: always empty. */
  shipments: z.array(z.object({ id: z.string() })),
  vouchers: z.array(Voucher),
  voucher_count: z.number().int(),
});
export type Order = z.input<typeof Order>;

export const OrderResponse = okEnvelope('order', Order);
export const OrderList = listEnvelope('orders', Order);
export const OrderListQuery = PageQuery.extend({
  order_number: z.string().min(1).max(64).optional(),
  status: OrderStatus.optional(),
  account_id: IdParam.optional(),
});

/**
 * An order with its items and vouchers (read from the database, or the snapshot its placing
 * answered) as the API shows it; `siteBase` is the site's absolute address (print_url).
 */
export function toOrder(o: OrderWithDetails | OrderSnapshot, siteBase: string): z.output<typeof Order> {
  return {
    id: o.id,
    order_number: o.order_number,
    status: o.status,
    items: o.items.map((i) => ({ offer_id: i.offer_id, quantity: i.quantity })),
    account_id: o.account_id,
    application_id: o.application_id,
    customer_name: o.customer_name,
    customer_reference: o.customer_reference ?? null,
    purchased_at: iso(o.purchased_at),
    cancelled_at: isoOrNull(o.cancelled_at),
    shipping_address: (o.shipping_address as Location | null) ?? null,
    shipments: [],
    vouchers: o.vouchers.map((v) => toVoucher(v, siteBase)),
    voucher_count: o.voucher_count,
  };
}
