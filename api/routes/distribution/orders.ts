import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { derivedId } from '../../../store/ids';
import {
  cancelOrderUpdate,
  ORDER_CANCELLABLE_MS,
  ORDER_WORKFLOW_TYPE,
  placedUpdate,
  type OrderFulfilmentInput,
} from '../../../workflows/order-messages';
import { orderWorkflowId } from '../../../workflows/shared/ids';
import type { ServiceDeps } from '../../../services/deps';
import { conflict, invalidField, notFound } from '../../errors';
import { findAccount } from '../../../store/accounts';
import { findOrder, listOrders } from '../../../store/orders-queries';
import { IdParam } from '../../../schemas/common';
import { OrderCreateBody, OrderList, OrderListQuery, OrderResponse, OrderUpdateBody, type OrderCreate } from '../../../schemas/order';
import { updateFailure, withinDeadline } from '../../../services/workflow-outcomes';
import { refusalFailure } from '../../../domain/failures';

const Params = z.object({ id: IdParam });

/**
 * Orders: each is an order-fulfilment workflow whose id comes from (client, order_number). POST
 * starts it with an Update that answers once the order is placed, so the reply holds the vouchers.
 */
export const orderRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const { db, temporal, config } = deps;

  async function place(clientId: string, o: OrderCreate) {
    if (o.account_id) {
      const account = await findAccount(db, clientId, o.account_id);
      if (account?.status !== 'active')
        throw invalidField(
          'account_id',
          account ? `account ${o.account_id} is ${account.status}, not active` : `account ${o.account_id} not found`,
        );
    }
    const workflowId = orderWorkflowId(clientId, o.order_number);
    const orderId = derivedId('ord', workflowId);
    const input: OrderFulfilmentInput = {
      order: {
        orderId,
        clientId,
        orderNumber: o.order_number,
        accountId: o.account_id ?? null,
        applicationId: o.application_id ?? null,
        customerName: o.customer_name,
        shippingAddress: o.shipping_address ?? null,
        items: o.items,
      },
      cancellableForMs: ORDER_CANCELLABLE_MS,
    };
    const startWorkflowOperation = new WithStartWorkflowOperation(ORDER_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      // A refused order ends failed, so its order_number may be used again; a placed one never.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
    try {
      const placed = await withinDeadline(
        temporal.workflow.executeUpdateWithStart(placedUpdate, { startWorkflowOperation }),
        config.WORKFLOW_ANSWER_TIMEOUT_SECONDS,
        {
          message: `order ${orderId} is still being placed; GET /orders/${orderId} or retry the same POST (it is idempotent by order_number)`,
          order_id: orderId,
        },
      );
      if (!placed.ok) throw refusalFailure(placed);
      return orderId;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        throw conflict('duplicate', `order_number ${o.order_number} is already used by order ${orderId}`, {
          field: 'order_number',
          order_id: orderId,
        });
      }
      throw err;
    }
  }

  const mine = async (clientId: string, id: string) => (await findOrder(db, clientId, id)) ?? Promise.reject(notFound('order'));

  app.post('/orders', { schema: { body: OrderCreateBody, response: { 200: OrderResponse } } }, async (request) => {
    const orderId = await place(request.client.id, request.body.order);
    return { status: 'OK' as const, order: await mine(request.client.id, orderId) };
  });

  app.get('/orders', { schema: { querystring: OrderListQuery, response: { 200: OrderList } } }, async (request) => {
    const { rows, total } = await listOrders(db, request.client.id, request.query);
    return { status: 'OK' as const, orders: rows, page: request.query.page, per_page: request.query.per_page, total };
  });

  app.get('/orders/:id', { schema: { params: Params, response: { 200: OrderResponse } } }, async (request) => ({
    status: 'OK' as const,
    order: await mine(request.client.id, request.params.id),
  }));

  // The only change an order takes is its cancellation, through its workflow.
  app.put('/orders/:id', { schema: { params: Params, body: OrderUpdateBody, response: { 200: OrderResponse } } }, async (request) => {
    const order = await mine(request.client.id, request.params.id);
    if (order.status === 'cancelled') throw conflict('invalid_state_transition', 'the order is already cancelled');
    const handle = temporal.workflow.getHandle(orderWorkflowId(request.client.id, order.order_number));
    await handle
      .executeUpdate(cancelOrderUpdate)
      .catch((err) => Promise.reject(updateFailure(err, 'the order can no longer be cancelled; cancel its vouchers one by one')));
    return { status: 'OK' as const, order: await mine(request.client.id, order.id) };
  });
};
