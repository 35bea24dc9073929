import { orderKey } from '../../domain/orders';
import { intakeBatchRequestId, intakeUpdateIdOf, orderIntakeShard, orderIntakeWorkflowId } from '../../workflows/shared/ids';

/*
 * Every API process must send an offer's orders to the same intake workflow, in this release and the
 * next: the shard is a fixed function of (the order's first offer by id, shards), and it spreads
 * offers evenly enough that no shard meets Temporal's 10 Updates in flight long before the others.
 */
describe('order intake shards', () => {
  it('is a fixed function of the first offer by id (values pinned: a change would move offers between shards)', () => {
    expect([0, 1, 2, 3, 4].map((i) => orderIntakeShard([`ofr_${i}`], 16))).toEqual([9, 6, 3, 0, 5]);
    // An order of several offers goes where its first offer by id goes, whatever the items' order.
    expect(orderIntakeShard(['ofr_b', 'ofr_a'], 1 << 30)).toBe(orderIntakeShard(['ofr_a'], 1 << 30));
    expect(orderIntakeShard(['ofr_a', 'ofr_b'], 1 << 30)).not.toBe(orderIntakeShard(['ofr_b'], 1 << 30));
  });

  it('spreads 3,200 offers over 16 shards within 25% of even', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 3200; i++) counts[orderIntakeShard([`ofr_${i.toString(36)}x${i % 7}`], 16)]++;
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
