import { expectChaosRunHolds } from '../setup/chaos-run';

/**
 * The short chaos run on a real Temporal cluster (`npm run chaos -- --short --cluster`): the same load
 * and faults as the stack lane's chaos run, but Temporal is four server processes over mTLS on
 * Postgres, and its fault is the history service (which owns every workflow's state) killed with
 * SIGKILL mid-load and restarted. Every invariant holds.
 */
describe('chaos under load on a real Temporal cluster', () => {
  it('keeps every order invariant through a worker SIGKILL, a history service SIGKILL, a Postgres restart and a SIGKILL of an API+worker process mid-order', async () => {
    await expectChaosRunHolds(
      ['--short', '--cluster'],
      ['kill -9 the worker', 'kill -9 the history service', 'restart Postgres', 'kill -9 the API+worker process mid-order'],
      400_000,
    );
  }, 420_000);
});
