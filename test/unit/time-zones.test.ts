import { canonicalTimeZone, localDay, localTime, startOfLocalDay } from '../../domain/time-zones';

describe("an advertiser's time zone", () => {
  it('accepts IANA names in any case, stored in their own spelling, and refuses the rest', () => {
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires')).toMatch(/^America\/(Argentina\/)?Buenos_Aires$/);
    for (const bad of ['Mars/Olympus', 'CET+1', '+01:00', 'EST5EDT ', '', 'Europe/Paris/../x', 'x'.repeat(200)])
      expect([bad, canonicalTimeZone(bad)]).toEqual([bad, undefined]);
  });

  it("gives the shop's local day and time, not UTC's", () => {
    const lateEvening = new Date('2026-11-28T23:30:00Z');
    expect(localDay(lateEvening, 'Europe/Paris')).toBe('2026-11-29');
    expect(localTime(lateEvening, 'Europe/Paris')).toBe('00:30');
    expect(localDay(lateEvening, 'America/Los_Angeles')).toBe('2026-11-28');
    expect(localDay(lateEvening, 'UTC')).toBe('2026-11-28');
  });

  it('starts the local day at local midnight, on DST change days too', () => {
    expect(startOfLocalDay(new Date('2026-11-28T23:30:00Z'), 'Europe/Paris').toISOString()).toBe('2026-11-28T23:00:00.000Z');
    expect(startOfLocalDay(new Date('2026-11-28T10:00:00Z'), 'America/Los_Angeles').toISOString()).toBe('2026-11-28T08:00:00.000Z');
    // Paris springs forward on 2026-03-29 (midnight still +01:00) and falls back on 2026-10-25 (midnight +02:00).
    expect(startOfLocalDay(new Date('2026-03-29T20:00:00Z'), 'Europe/Paris').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(startOfLocalDay(new Date('2026-10-25T20:00:00Z'), 'Europe/Paris').toISOString()).toBe('2026-10-24T22:00:00.000Z');
    // Santiago skips midnight on 2026-09-06: the day starts at 01:00 local (04:00Z).
    expect(startOfLocalDay(new Date('2026-09-06T15:00:00Z'), 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(startOfLocalDay(new Date('2026-11-28T12:00:00Z'), 'UTC').toISOString()).toBe('2026-11-28T00:00:00.000Z');
  });
});
