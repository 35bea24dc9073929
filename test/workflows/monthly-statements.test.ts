import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { previousMonth } from '../../domain/statements';
import { utcDay } from '../../domain/dates';
import {
  MONTHLY_STATEMENTS_WORKFLOW_TYPE,
  type MonthlyStatementsInput,
  type MonthlyStatementsResult,
} from '../../workflows/monthly-statements-messages';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The monthly-statements workflow with its activities replaced by doubles: it pages through the
 * clients by id, stores one statement per client, counts what it stored, takes the month before
 * its start when the schedule gives none, and fails at the end naming a client whose statement
 * failed for good, after storing the others.
 */
describe('monthly-statements workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const clients = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ client_id: `cli_${String(from + i).padStart(4, '0')}`, interface: 'distribution' as const }));
  const run = (taskQueue: string, input: MonthlyStatementsInput) =>
    env.client.workflow.execute<(i: MonthlyStatementsInput) => Promise<MonthlyStatementsResult>>(MONTHLY_STATEMENTS_WORKFLOW_TYPE, {
      workflowId: `monthly-statements-test-${taskQueue}`,
      taskQueue,
      args: [input],
    });

  it('pages through the clients by id and stores each one, counting those stored before apart', async () => {
    const calls = new ActivityCalls();
    const all = clients(150);
    const doubles = calls.wrap({
      statementClients: async (q: { after: string; limit: number }) => all.filter((c) => c.client_id > q.after).slice(0, q.limit),
      // Every third was stored by an earlier run.
      storeMonthlyStatement: async (j: { clientId: string }) => ({
        id: `stm_${j.clientId}`,
        stored: Number(j.clientId.slice(4)) % 3 !== 0,
      }),
    });
    const result = await env.withWorker(doubles, (q) => run(q, { month: '2026-10' }));
    expect(result).toEqual({ month: '2026-10', clients: 150, stored: 100 });
    expect(calls.of('statementClients')).toEqual([
      { month: '2026-10', after: '', limit: 100 },
      { month: '2026-10', after: 'cli_0099', limit: 100 },
    ]);
    expect(new Set(calls.of('storeMonthlyStatement').map((j) => (j as { clientId: string }).clientId)).size).toBe(150);
  });

  it('started by the schedule without a month, makes the month before its start (UTC)', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({ statementClients: async () => [], storeMonthlyStatement: async () => ({ id: 'x', stored: true }) });
    const result = await env.withWorker(doubles, (q) => run(q, {}));
    expect(result).toEqual({ month: previousMonth(new Date()), clients: 0, stored: 0 });
  });

  it('refuses a month that has not ended, for good and before reading a client: nothing stored (issue 34)', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      statementClients: async () => clients(3),
      storeMonthlyStatement: async () => ({ id: 'x', stored: true }),
    });
    const thisMonth = utcDay(new Date()).slice(0, 7);
    const failed = await env.withWorker(doubles, (q) => run(q, { month: thisMonth }).catch((e: unknown) => e));
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    const cause = (failed as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toMatchObject({ type: 'MonthNotEnded', nonRetryable: true });
    expect(cause.message).toMatch(new RegExp(`the month ${thisMonth} has not ended`));
    expect(calls.of('statementClients')).toEqual([]);
    expect(calls.of('storeMonthlyStatement')).toEqual([]);
  });

  it('stores the others, then fails naming the client whose statement failed for good', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      statementClients: async (q: { after: string }) => (q.after ? [] : clients(5)),
      storeMonthlyStatement: async (j: { clientId: string }) => {
        if (j.clientId === 'cli_0002') throw ApplicationFailure.nonRetryable('the object store refused', 'Refused');
        return { id: `stm_${j.clientId}`, stored: true };
      },
    });
    const failed = await env.withWorker(doubles, (q) => run(q, { month: '2026-10' }).catch((e: unknown) => e));
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect(String((failed as WorkflowFailedError).cause?.message)).toMatch(/2026-10 statements of 1 client\(s\) failed \(cli_0002\)/);
    expect(calls.of('storeMonthlyStatement')).toHaveLength(5);
  });

  it('counts every failed client of the month, past the 100 ids a continued run carries', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      statementClients: async (q: { after: string }) => (q.after === 'cli_0999' ? clients(3, 1000) : []),
      storeMonthlyStatement: async (j: { clientId: string }) => {
        if (j.clientId === 'cli_1001') throw ApplicationFailure.nonRetryable('the object store refused', 'Refused');
        return { id: `stm_${j.clientId}`, stored: true };
      },
    });
    // As an earlier run of the month continued it: 250 failed, the first 100 named.
    const carried = clients(100).map((c) => c.client_id);
    const continued = { month: '2026-10', after: 'cli_0999', done: { month: '2026-10', clients: 1000, stored: 750 }, failed: carried };
    const failed = await env.withWorker(doubles, (q) => run(q, { ...continued, failedCount: 250 }).catch((e: unknown) => e));
    expect(String((failed as WorkflowFailedError).cause?.message)).toMatch(
      /2026-10 statements of 251 client\(s\) failed \(cli_0000, .*, …\)/,
    );
    // A run continued by the release before the count: its carried ids are the count.
    const legacy = await env.withWorker(doubles, (q) => run(q, continued).catch((e: unknown) => e));
    expect(String((legacy as WorkflowFailedError).cause?.message)).toMatch(/statements of 101 client\(s\) failed/);
  });
});
