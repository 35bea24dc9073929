import { prunablePrefix, type PruneCandidate } from '../../domain/event-feed';

/*
 * Which events the pruner deletes (docs/data-retention.md): a prefix of the feed, so that "deleted"
 * is exactly "at or below the new floor". The first event it must keep stops it.
 */
describe('prunablePrefix', () => {
  const event = (position: number, over: Partial<PruneCandidate> = {}): PruneCandidate => ({
    id: `evt_${position}`,
    position,
    old: true,
    dispatched: true,
    held: false,
    ...over,
  });
  const positions = (c: PruneCandidate[]) => prunablePrefix(c).map((e) => e.position);

  it('takes every event when all may go, none when there are none', () => {
    expect(positions([event(1), event(2), event(3)])).toEqual([1, 2, 3]);
    expect(positions([])).toEqual([]);
  });

  it.each([
    ['inside the window', { old: false }],
    ['not dispatched to callbacks yet', { dispatched: false }],
    ['with a callback delivery still kept', { held: true }],
  ])('stops at the first event %s, keeping every event after it', (_why, keep) => {
    expect(positions([event(1), event(2), event(3, keep), event(4), event(5)])).toEqual([1, 2]);
    expect(positions([event(1, keep), event(2)])).toEqual([]);
  });
});
