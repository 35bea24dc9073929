import { eventTypeFor, offerClosedToViewerNow } from '../../schemas/callback-event';

/**
 * Issue 43 item 13 (decision 0074): a distributor sees an offer event when the offer was open to it
 * at the time of the event (the exclusivity the event kept), not by who may see the offer now.
 */
describe('who sees an offer event: by the time it was written', () => {
  const a = { interface: 'distribution' as const, client_id: 'cli_a' };
  const b = { interface: 'distribution' as const, client_id: 'cli_b' };
  const toB = {
    client_id: 'cli_adv',
    status: 'approved' as const,
    published_at: new Date(),
    document: { exclusivity: { exclusive: true, channels: ['cli_b'] } },
  };
  const stockEvent = (exclusivity: unknown, created_at = new Date()) => ({
    type: 'offer.stock_changed',
    data: {},
    client_id: null,
    created_at,
    exclusivity,
  });

  it("shows the events of A's period to A and not to B, after the exclusivity moved to B", () => {
    const ofA = stockEvent({ exclusive: true, channels: ['cli_a'] });
    expect(eventTypeFor(ofA, toB, a)).toBe('offer.changed');
    expect(eventTypeFor(ofA, toB, b)).toBeNull();
    // Its body names the offer by id only for A: what it is now is B's to read.
    expect(offerClosedToViewerNow(ofA, toB, a)).toBe(true);
    expect(offerClosedToViewerNow(ofA, toB, b)).toBe(false);
  });

  it('judges `until` on the day of the event, and an event that kept no exclusivity by the offer now', () => {
    const ended = stockEvent({ exclusive: true, channels: ['cli_a'], until: '2026-01-02' }, new Date('2026-01-02T00:00:00Z'));
    expect(eventTypeFor(ended, toB, b)).toBe('offer.changed');
    const stillExclusive = stockEvent({ exclusive: true, channels: ['cli_a'], until: '2026-01-02' }, new Date('2026-01-01T23:59:59Z'));
    expect(eventTypeFor(stillExclusive, toB, b)).toBeNull();
    expect(eventTypeFor(stockEvent({}), toB, a)).toBe('offer.changed');
    // Written before events kept their exclusivity (migration 0066): the offer as it is now decides.
    expect(eventTypeFor(stockEvent(null), toB, a)).toBeNull();
    expect(eventTypeFor(stockEvent(null), toB, b)).toBe('offer.changed');
  });
});
