import { sql } from 'kysely';
import { Failure } from '../../../domain/failures';
import { waitForStatusChange } from '../../../services/review';
import { eventually } from '../../setup/eventually';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

/*
 * The wait after an operator's decision (admin CLI, ops console, demo seed): it ends when the
 * commit changing the offer's status is notified, or at its deadline, never before the change and
 * never long after the deadline. The status is written here as the review workflow's activity would.
 */
describe('waiting for an offer status change', () => {
  let h: Harness;
  let clientId: string;
  beforeAll(async () => {
    h = await createHarness();
    clientId = (await h.client('submission')).clientId;
  });
  afterAll(() => h.close());

  // This file's database only: the other jest worker's stack LISTENs on the same Postgres server.
  const listening = async () =>
    Number(
      (
        await sql<{ n: number }>`select count(*) as n from pg_stat_activity
          where query = 'LISTEN "offer_status"' and datname = current_database()`.execute(h.services.db)
      ).rows[0].n,
    );
  const setStatus = (offerId: string, status: 'approved' | 'rejected') =>
    h.services.db.updateTable('offers').set({ status }).where('id', '=', offerId).execute();
  const track = <T>(p: Promise<T>) => {
    const t = { settled: false, at: 0, result: p };
    void p.finally(() => Object.assign(t, { settled: true, at: Date.now() })).catch(() => undefined);
    return t;
  };
  /** Until the wait listens; a wait that ended meanwhile (nothing changed yet) fails the test at once. */
  const untilListening = (wait: { settled: boolean }) =>
    eventually('the wait to listen', async () => {
      if (wait.settled) throw new Error('the wait ended before the status changed');
      return (await listening()) === 1;
    });

  it('answers the new status once the change commits, not before', async () => {
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const wait = track(waitForStatusChange(h.services, offerId, 'pending', 20_000));
    await untilListening(wait);
    // A write not yet committed notifies nobody.
    await h.services.db.transaction().execute(async (trx) => {
      await trx.updateTable('offers').set({ status: 'approved' }).where('id', '=', offerId).execute();
      await sql`select 1`.execute(h.services.db); // a round trip while the write is open
      expect(wait.settled).toBe(false);
    });
    const committed = Date.now();
    expect(await wait.result).toBe('approved');
    expect(wait.at - committed).toBeLessThan(2_000);
    // No connection per wait: the process's one shared listener stays open for the next (decision 0072).
    expect(await listening()).toBeLessThanOrEqual(1);
  });

  it('answers a change that committed before it listened at once', async () => {
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    await setStatus(offerId, 'rejected');
    const started = Date.now();
    expect(await waitForStatusChange(h.services, offerId, 'pending', 20_000)).toBe('rejected');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('answers the unchanged status at its deadline, not later; another offer changing does not end it', async () => {
    const [offerId, other] = [await seedOffer(h, clientId, {}, 'pending'), await seedOffer(h, clientId, {}, 'pending')];
    const started = Date.now();
    const wait = track(waitForStatusChange(h.services, offerId, 'pending', 1_500));
    await untilListening(wait);
    await setStatus(other, 'approved');
    expect(await wait.result).toBe('pending');
    expect(wait.at - started).toBeGreaterThanOrEqual(1_500);
    expect(wait.at - started).toBeLessThan(3_000);
    // No connection per wait: the process's one shared listener stays open for the next (decision 0072).
    expect(await listening()).toBeLessThanOrEqual(1);
  });

  it('refuses an unknown offer as not_found', async () => {
    const err = await waitForStatusChange(h.services, 'ofr_nosuchoffer', 'pending', 1_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Failure);
    expect((err as Failure).code).toBe('not_found');
  });
});
