/*
 * The monthly-statements workflow's contract (docs/statements.md "Monthly statements"): on the 1st
 * of each month (UTC) a Temporal Schedule starts it for the month before; `admin statements run
 * <month>` starts it for any month.
 */

export const MONTHLY_STATEMENTS_WORKFLOW_TYPE = 'monthlyStatementsWorkflow';

export interface MonthlyStatementsInput {
  /** `YYYY-MM`; absent when the schedule starts it: the month before the run's start (UTC). */
  month?: string;
  /** Continue-as-new: the clients up to this id are done, and what this month's earlier runs counted. */
  after?: string;
  done?: MonthlyStatementsResult;
  /** Continue-as-new: clients whose statement failed for good in this month's earlier runs (the run fails at its end, naming them). */
  failed?: string[];
  /** Continue-as-new: how many clients failed in the earlier runs (`failed` names at most the first 100); absent from runs before this field, where it is `failed.length`. */
  failedCount?: number;
}

export interface MonthlyStatementsResult {
  month: string;
  /** Clients with a statement for the month. */
  clients: number;
  /** Statements stored by this run (the rest were stored by an earlier run of the month). */
  stored: number;
}

/** What the activity that stores one client's statement is given and answers. */
export interface MonthlyStatementJob {
  month: string;
  clientId: string;
  iface: 'submission' | 'distribution';
}
export interface MonthlyStatementStored {
  id: string;
  /** False when the month's statement of this client was stored before (nothing written). */
  stored: boolean;
}
