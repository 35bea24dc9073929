import { monthEnd, monthNotEnded, previousMonth } from '../../domain/statements';

/*
 * A month is stored once it is over (issue 34 finding 3): the monthly run refuses a month whose
 * last UTC instant has not passed, and the month the schedule computes is always one that has.
 */
describe('a month is over at the start of the next one (UTC)', () => {
  it('ends at 00:00Z on the 1st of the next month, December into January', () => {
    expect(monthEnd('2026-11').toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(monthEnd('2026-12').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(monthEnd('2028-02').toISOString()).toBe('2028-03-01T00:00:00.000Z');
  });

  it('refuses the month until its last millisecond has passed, and names when it ends', () => {
    expect(monthNotEnded('2026-11', new Date('2026-11-27T14:00:00Z'))).toMatch(
      /the month 2026-11 has not ended: it ends at 2026-12-01T00:00:00.000Z/,
    );
    expect(monthNotEnded('2026-11', new Date('2026-11-30T23:59:59.999Z'))).not.toBeNull();
    expect(monthNotEnded('2026-11', new Date('2026-12-01T00:00:00Z'))).toBeNull();
    expect(monthNotEnded('2027-03', new Date('2026-11-27T14:00:00Z'))).not.toBeNull();
  });

  it('the month the schedule runs (the one before its start) is always over', () => {
    for (const at of ['2026-12-01T00:30:00Z', '2027-01-01T00:30:00Z', '2026-03-01T00:00:00Z', '2026-11-27T14:00:00Z']) {
      expect(monthNotEnded(previousMonth(new Date(at)), new Date(at))).toBeNull();
    }
  });
});
