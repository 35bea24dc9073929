import { estimateBasis, expectedDecisionAt, MIN_CATEGORY_DECISIONS, percentile, slaStanding } from '../../domain/review-estimate';

/*
 * The expected decision time and the SLA as the review endpoint and the console state them
 * (decision 0078), from a seeded history of decision durations.
 */
const HOUR = 3600;
const submitted = new Date('2026-11-28T08:00:00Z');
const after = (seconds: number) => new Date(submitted.getTime() + seconds * 1000);

describe('review estimate', () => {
  // 10 past reviews took 1 h … 10 h.
  const history = Array.from({ length: 10 }, (_, i) => (i + 1) * HOUR);

  it('takes p50 and p90 by the nearest rank', () => {
    expect(percentile(history, 50)).toBe(5 * HOUR);
    expect(percentile(history, 90)).toBe(9 * HOUR);
    expect(percentile([], 50)).toBeNull();
  });

  it('expects a fresh review at the median of the past ones', () => {
    expect(expectedDecisionAt(submitted, submitted, history)).toEqual(after(5 * HOUR));
  });

  it('judges a review that has waited long by the reviews that lasted as long: later than the plain median', () => {
    // Waited 6 h: of 6…10 h, the median is 8 h.
    expect(expectedDecisionAt(submitted, after(6 * HOUR), history)).toEqual(after(8 * HOUR));
    // Waited past every one of them: no honest estimate.
    expect(expectedDecisionAt(submitted, after(11 * HOUR), history)).toBeNull();
    expect(expectedDecisionAt(submitted, submitted, [])).toBeNull();
  });

  it("uses the offer's category when it has enough decisions, otherwise every category's", () => {
    const fewInCategory = Array.from({ length: MIN_CATEGORY_DECISIONS - 1 }, () => 30 * HOUR);
    expect(estimateBasis(7, fewInCategory, history)).toEqual({
      scope: 'overall',
      category_id: null,
      decisions: 10,
      p50_seconds: 5 * HOUR,
      p90_seconds: 9 * HOUR,
    });
    const enough = [...fewInCategory, 40 * HOUR];
    expect(estimateBasis(7, enough, history)).toMatchObject({
      scope: 'category',
      category_id: 7,
      decisions: MIN_CATEGORY_DECISIONS,
      p50_seconds: 30 * HOUR,
      p90_seconds: 30 * HOUR,
    });
    expect(estimateBasis(null, [], [])).toMatchObject({ scope: 'none', decisions: 0, p50_seconds: null });
  });

  it('counts the SLA down to zero and below once breached', () => {
    const due = after(2 * HOUR);
    expect(slaStanding(due, after(HOUR))).toEqual({ due_at: due, remaining_seconds: HOUR, breached: false });
    expect(slaStanding(due, after(2 * HOUR))).toMatchObject({ remaining_seconds: 0, breached: true });
    expect(slaStanding(due, after(3 * HOUR))).toMatchObject({ remaining_seconds: -HOUR, breached: true });
  });
});
