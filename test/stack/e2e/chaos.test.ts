import { expectChaosRunHolds } from '../../setup/chaos-run';

/**
 * The short chaos run (`npm run chaos -- --short`): faults under load, then every invariant checked.
 */
describe('chaos under load', () => {
  it('keeps every order invariant through a worker SIGKILL, a Temporal restart, a Postgres restart and a SIGKILL of an API+worker process mid-order', async () => {
    await expectChaosRunHolds(
      ['--short'],
      ['kill -9 the worker', 'restart the Temporal server', 'restart Postgres', 'kill -9 the API+worker process mid-order'],
      280_000,
    );
  }, 300_000);
});
