import { cancelOrder, getOrder, listOrders, placeOrder } from '../../../services/orders';
import { IdParams } from '../../../schemas/common';
import { deadlineResponses, listReply, okReply } from '../../../schemas/envelope';
import { siteBaseUrl } from '../../urls';
import { OrderCreateBody, OrderList, OrderListQuery, OrderResponse, OrderUpdateBody } from '../../../schemas/order';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Orders');

/**
 * Orders (services/orders.ts): POST places the order through the order intake, the one way orders
 * are placed, and answers once it is placed, so the reply holds the vouchers; PUT cancels it.
 */
export const orderRoutes: RoutePlugin = async (app, { deps }) => {
  app.post(
    '/orders',
    op('createOrder', 'Place an order (issues its vouchers)', {
      body: OrderCreateBody,
      response: { 200: OrderResponse, ...deadlineResponses(false) },
    }),
    async (request) => okReply('order', await placeOrder(deps, request.client.id, request.body.order, siteBaseUrl(request))),
  );

  app.get('/orders', op('listOrders', 'List orders', { querystring: OrderListQuery, response: { 200: OrderList } }), async (request) =>
    listReply('orders', await listOrders(deps, request.client.id, request.query, siteBaseUrl(request)), request.query),
  );

  app.get('/orders/:id', op('getOrder', 'Get one order', { params: IdParams, response: { 200: OrderResponse } }), async (request) =>
    okReply('order', await getOrder(deps, request.client.id, request.params.id, siteBaseUrl(request))),
  );

  // The only change an order takes is its cancellation, through its cancellation workflow.
  app.put(
    '/orders/:id',
    op('updateOrder', 'Cancel an order', {
      params: IdParams,
      body: OrderUpdateBody,
      response: { 200: OrderResponse, ...deadlineResponses() },
    }),
    async (request) => okReply('order', await cancelOrder(deps, request.client.id, request.params.id, siteBaseUrl(request))),
  );
};
