import { Command, Option } from 'commander';
import {
  encryptCallbackSecrets,
  reencryptCallbackSecrets,
  callbackLog,
  disableCallbacks,
  replayCallbackEvent,
  rotateCallbackSecret,
  setCallbackUrl,
  showCallbackEndpoint,
  wakeCallbackLanes,
} from '../../../services/callbacks';
import { output, type AdminContext } from '../context';
import { adminIo } from '../io';

const keyOption = () => new Option('--key <api-key>', "the client's API key (or its client id)").makeOptionMandatory();

type Ctx = () => AdminContext;

/** `--event-types a,b`: those types alone; `all` (or empty): every type the client can receive. */
const eventTypesArg = (v: string) => (v.trim() === 'all' ? [] : v.split(',').flatMap((t) => (t.trim() ? [t.trim()] : [])));
/** `--max-per-second N`; `none` (or 0): no limit. A non-number is passed on as NaN, which the service refuses. */
const perSecondArg = (v: string) => (v === 'none' || v === '0' ? null : Number(v));

interface SetOptions {
  key: string;
  url: string;
  format: 'json' | 'xml';
  json: boolean;
  eventTypes?: string[];
  maxPerSecond?: number | null;
  description?: string;
}

/** Where a client's events go: set, show, disable, its deliveries, and a replay. */
function endpointCommands(cmd: Command, ctx: Ctx) {
  cmd
    .command('set')
    .description(
      "set (or change, re-enabling) a client's callback URL and its endpoint's settings (unchanged when left out); a new endpoint prints its signing secret",
    )
    .addOption(keyOption())
    .requiredOption('--url <url>', 'where to POST events (production: public HTTPS only)')
    .addOption(new Option('--format <format>', 'body format').choices(['json', 'xml']).default('json'))
    .option('--event-types <types>', 'comma-separated event types it receives; all (default for a new endpoint): every one', eventTypesArg)
    .option('--max-per-second <n>', 'at most this many attempts a second, spread evenly (1-100); none (default): no limit', perSecondArg)
    .option('--description <text>', "the integrator's note on the endpoint; empty: none")
    .option('--json', 'print a JSON object instead of the secret alone', false)
    .action(async (o: SetOptions) => {
      const c = ctx();
      const { client, endpoint, secret } = await setCallbackUrl(
        { db: c.db, config: c.config, ...c.callbackUrlCheck },
        {
          keyOrId: o.key,
          url: o.url,
          format: o.format,
          shape: { eventTypes: o.eventTypes, maxPerSecond: o.maxPerSecond, description: o.description },
        },
      );
      if (!secret)
        adminIo().stderr.write('endpoint updated and enabled; its signing secret is unchanged (callbacks rotate-secret makes a new one)\n');
      if (o.json)
        output({
          client_id: client.id,
          url: endpoint.url,
          format: endpoint.format,
          description: endpoint.description,
          event_types: endpoint.event_types,
          max_per_second: endpoint.max_per_second,
          status: endpoint.status,
          secret,
        });
      else if (secret) output(secret);
    });
  cmd
    .command('show')
    .description(
      "a client's callback endpoint: URL, format, description, event types, max per second, status (disabled with its reason), failures, secret rotation",
    )
    .addOption(keyOption())
    .action(async (o: { key: string }) => {
      output(await showCallbackEndpoint(ctx(), o.key));
    });
  cmd
    .command('disable')
    .description("stop a client's callbacks; pending deliveries are cancelled (callbacks set re-enables)")
    .addOption(keyOption())
    .option('--reason <reason>', 'why, shown by callbacks show', 'disabled by an operator')
    .action(async (o: { key: string; reason: string }) => {
      await disableCallbacks(ctx(), o.key, o.reason);
      output({ disabled: true, reason: o.reason });
    });
  cmd
    .command('log')
    .description("a client's recent deliveries, newest first: attempts, last status code, next retry")
    .addOption(keyOption())
    .option('--limit <n>', 'how many', (v) => Number.parseInt(v, 10), 20)
    .action(async (o: { key: string; limit: number }) => {
      output(await callbackLog(ctx(), o.key, o.limit));
    });
  cmd
    .command('replay')
    .description('deliver one event again (same event id), to every endpoint it went to, or only to --key')
    .argument('<event-id>')
    .option('--key <api-key>', "only to this client's endpoint")
    .action(async (eventId: string, o: { key?: string }) => {
      const c = ctx();
      const { deliveries, lanes } = await replayCallbackEvent({ db: c.db, config: c.config }, eventId, o.key);
      await wakeCallbackLanes({ temporal: await c.temporal(), config: c.config }, lanes);
      output({ replayed: eventId, deliveries });
    });
}

/** The signing secrets: rotation, and encryption at rest under CALLBACK_SECRET_KEY. */
function secretCommands(cmd: Command, ctx: Ctx) {
  cmd
    .command('rotate-secret')
    .description('make a new signing secret; the old one keeps signing too for CALLBACK_SECRET_OVERLAP_SECONDS')
    .addOption(keyOption())
    .option('--json', 'print a JSON object instead of the secret alone', false)
    .action(async (o: { key: string; json: boolean }) => {
      const { secret, previousValidUntil } = await rotateCallbackSecret(ctx(), o.key);
      adminIo().stderr.write(`the previous secret stays valid until ${previousValidUntil.toISOString()}\n`);
      output(o.json ? { secret, previous_secret_valid_until: previousValidUntil } : secret);
    });
  cmd
    .command('encrypt-secrets')
    .description('encrypt under the current CALLBACK_SECRET_KEY every signing secret still stored in clear (safe to run again)')
    .action(async () => {
      output({ encrypted: await encryptCallbackSecrets(ctx()) });
    });
  cmd
    .command('reencrypt')
    .description(
      'key rotation: rewrite under the current (first) CALLBACK_SECRET_KEY every signing secret in clear, enc:v1 or under another key, so older keys can be dropped (safe to run again, and beside running deliveries)',
    )
    .option('--batch-size <n>', 'endpoints per transaction', (v) => Number(v), 100)
    .action(async (o: { batchSize: number }) => {
      output(await reencryptCallbackSecrets(ctx(), o.batchSize));
    });
}

/** `callbacks …`: operators set, inspect, disable and replay clients' offer-change callbacks (docs/callbacks.md). */
export function callbacksCommand(ctx: Ctx): Command {
  const cmd = new Command('callbacks').description("clients' offer-change callback URLs, secrets and deliveries");
  endpointCommands(cmd, ctx);
  secretCommands(cmd, ctx);
  return cmd;
}
