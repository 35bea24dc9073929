import { orderKey } from '../../domain/orders';
import { intakeBatchRequestId, intakeUpdateIdOf, orderIntakeShard, orderIntakeWorkflowId } from '../../workflows/shared/ids';

/*
 * Every API process must send an order_number to the same intake workflow, in this release and the
 * next: the shard is a fixed function of (client, order_number, shards), and it spreads orders
 * evenly enough that no shard meets Temporal's 10 Updates in flight long before the others.
 */
describe('order intake shards', () => {
  it('is a fixed function of client and order_number (values pinned: a change would move numbers between shards)', () => {
    expect([0, 1, 2, 3, 4].map((i) => orderIntakeShard('cli_abc', `n-${i}`, 16))).toEqual([1, 14, 11, 8, 13]);
    // The separator keeps ('a', 'b:c') and ('a:b', 'c') apart.
    expect(orderIntakeShard('a', 'bc', 1 << 30)).not.toBe(orderIntakeShard('ab', 'c', 1 << 30));
  });

  it('spreads 3,200 order numbers over 16 shards within 25% of even', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 3200; i++) counts[orderIntakeShard(`cli_${i % 7}`, `order-${i}`, 16)]++;
    for (const c of counts) expect(Math.abs(c - 200)).toBeLessThanOrEqual(50);
  });

  it('names the workflow by task queue and shard', () => {
    expect(orderIntakeWorkflowId('offer-marketplace', 3)).toBe('order-intake:offer-marketplace:3');
  });

  it("keeps the order's key in the form the per-order workflow's id had: an order_number placed before still meets its order", () => {
    expect(orderKey('cli_abc', 'n-1')).toBe('order:cli_abc:n-1');
  });

  it("finds the Update that carried an order from its request id: its batch's", () => {
    const batch = '0b5c3a52-5f1e-4c43-9d55-1b9f4c3e2a10';
    expect(intakeBatchRequestId(batch, 3)).toBe(`${batch}/3`);
    expect(intakeUpdateIdOf(`${batch}/3`)).toBe(`orders:${batch}`);
  });
});
