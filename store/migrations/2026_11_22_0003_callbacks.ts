import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  // One callback endpoint per client (a deployment serves one environment, so one URL each).
  await db.schema
    .createTable('callback_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().unique().references('api_clients.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) =>
      c
        .notNull()
        .defaultTo('json')
        .check(sql`format in ('json', 'xml')`),
    )
    // Standard Webhooks secrets (`whsec_<base64>`). Kept in clear: the sender needs them to sign.
    .addColumn('secret', 'text', (c) => c.notNull())
    // After a rotation the old secret also signs until previous_secret_expires_at.
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('enabled')
        .check(sql`status in ('enabled', 'disabled')`),
    )
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'timestamptz')
    // Failed attempts since the last success, and when that run of failures began.
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', 'timestamptz')
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // One event to one endpoint; a replay is another delivery of the same event (same webhook-id).
  await db.schema
    .createTable('callback_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('callback_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('offer_events.id').onDelete('cascade'))
    .addColumn('offer_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    // The event type as this endpoint's interface names it (distribution clients get their own kinds).
    .addColumn('type', 'text', (c) => c.notNull())
    // The JSON body, fixed when the delivery is created so every attempt sends the same bytes
    // (text, not jsonb, which would reorder keys).
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('replay', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`status in ('pending', 'delivered', 'failed', 'cancelled')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('callback_deliveries_endpoint').on('callback_deliveries').columns(['endpoint_id', 'created_at']).execute();
  await db.schema.createIndex('callback_deliveries_event').on('callback_deliveries').column('event_id').execute();
  await db.schema
    .createIndex('callback_deliveries_pending')
    .on('callback_deliveries')
    .columns(['endpoint_id', 'offer_id', 'sequence'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('callback_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('callback_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('callback_attempts_delivery').on('callback_attempts').columns(['delivery_id', 'attempt']).execute();

  // The outbox cursor: an event is dispatched once its deliveries exist. A flag rather than a
  // position, because created_at (and any sequence) follows transaction start, not commit order.
  await db.schema.alterTable('offer_events').addColumn('dispatched_at', 'timestamptz').execute();
  // Events written before callbacks existed had no endpoint to go to.
  await db
    .updateTable('offer_events')
    .set({ dispatched_at: sql`now()` })
    .execute();
  await db.schema
    .createIndex('offer_events_undispatched')
    .on('offer_events')
    .column('created_at')
    .where(sql.ref('dispatched_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('offer_events_undispatched').execute();
  await db.schema.alterTable('offer_events').dropColumn('dispatched_at').execute();
  for (const t of ['callback_attempts', 'callback_deliveries', 'callback_endpoints']) await db.schema.dropTable(t).execute();
}
