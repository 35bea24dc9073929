import { Command } from 'commander';
import { findOrderForOperator } from '../../../services/orders';
import { AdminError, output, type AdminContext } from '../context';

/** Orders as operators look them up for support: any client's, with items, vouchers and where it was placed. */
export function ordersCommand(ctx: () => AdminContext): Command {
  const orders = new Command('orders').description('orders placed by distribution clients');
  orders
    .command('show')
    .description('an order with its client, items, vouchers, its key, its intake workflow and the id of the Update that carried it')
    .argument('<order-id>')
    .action(async (id: string) => {
      // No request to take a host from: print_url comes out as a path under the API's address.
      const order = await findOrderForOperator({ db: ctx().db, config: ctx().config }, id, '');
      if (!order) throw new AdminError(`no order ${id}`);
      output(order);
    });
  return orders;
}
