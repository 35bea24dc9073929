import { disableReason } from '../../domain/callback-failures';

describe('giving up on a failing callback endpoint', () => {
  const since = new Date('2026-01-01T00:00:00.000Z');
  const streak = { since, count: 7, lastError: 'HTTP 503' };
  const after = (seconds: number) => new Date(since.getTime() + seconds * 1000);

  it('keeps trying until every attempt has failed for the configured time, then says why, for operators', () => {
    expect(disableReason(streak, 3600, after(3599))).toBeNull();
    expect(disableReason(streak, 3600, after(3600))).toBe(
      'every attempt failed since 2026-01-01T00:00:00.000Z (7 in a row; last: HTTP 503)',
    );
    expect(disableReason(streak, 3600, after(7200))).toMatch(/^every attempt failed since /);
  });

  it('gives up at the first failure when the time is 0', () => {
    expect(disableReason(streak, 0, since)).not.toBeNull();
  });
});
