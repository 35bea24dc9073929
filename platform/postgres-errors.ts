import { Failure } from '../domain/failures';

/**
 * Postgres refusing a value the schemas let through: SQLSTATE class 22 (data exception: a date out
 * of range, a number too large for its column, a string too long, a character its encoding lacks)
 * and the integrity checks of class 23 (check, not-null, foreign key). Retrying cannot fix any of
 * them, so the API answers 422 and an activity fails for good (never retried forever).
 * A unique violation (23505) is not here: store functions that can meet one decide what it means.
 */
const VALUE_REFUSED = /^22|^23(502|503|514)$/;

interface PostgresError {
  code?: unknown;
  column?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/** The refusal for a Postgres data error, naming the column when Postgres does; undefined otherwise. */
export function unstorableValue(err: unknown): Failure | undefined {
  const pg = err as PostgresError | undefined;
  if (typeof pg?.code !== 'string' || !VALUE_REFUSED.test(pg.code)) return undefined;
  const field = typeof pg.column === 'string' ? pg.column : undefined;
  const message = `a value cannot be stored: ${String(pg.message ?? pg.code)}`;
  return new Failure('invalid_field', message, { ...(field ? { field } : {}), sqlstate: pg.code });
}
