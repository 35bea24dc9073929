/*
 * The callback outbox dispatcher's contract, apart from its code: every worker starts it at
 * start-up (worker/main.ts) through these definitions only.
 */

export const CALLBACK_DISPATCHER_WORKFLOW_TYPE = 'callbackDispatcherWorkflow';

export interface CallbackDispatcherInput {
  /** How long each pump activity runs before returning (one history entry per run). */
  runForMs?: number;
  /** How often the pump looks for new outbox events. */
  pollMs?: number;
}

/** The workflow's signature, for typed starts without importing its code. */
export type CallbackDispatcherWorkflow = (input?: CallbackDispatcherInput) => Promise<void>;
