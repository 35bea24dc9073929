import { Command, Option } from 'commander';
import { wakeLane } from '../../../activities/callbacks';
import { checkCallbackUrl, UnsafeCallbackUrlError } from '../../../activities/callbacks/url-safety';
import { revenueShares } from '../../../domain/money';
import { disableEndpoint, findEndpoint, recentDeliveries, replayEvent, rotateSecret, setEndpoint } from '../../../store/callbacks';
import { hashApiKey } from '../../../api/api-keys';
import type { ApiClient } from '../../../store/database';
import { AdminError, output, type AdminContext } from '../context';

/** The live client behind an API key (or a client id), of this deployment's environment. */
async function clientOf(c: AdminContext, keyOrId: string): Promise<ApiClient> {
  const client = await c.db
    .selectFrom('api_clients')
    .selectAll()
    .where((eb) => eb.or([eb('key_hash', '=', hashApiKey(keyOrId)), eb('id', '=', keyOrId)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!client) throw new AdminError('no live API key matches --key');
  if (client.environment !== c.config.SERVICE_ENVIRONMENT) {
    throw new AdminError(
      `this is a ${client.environment} key; this deployment serves ${c.config.SERVICE_ENVIRONMENT}, whose callback URLs are set on its own deployment`,
    );
  }
  return client;
}

async function endpointOf(c: AdminContext, keyOrId: string) {
  const client = await clientOf(c, keyOrId);
  const endpoint = await findEndpoint(c.db, client.id);
  if (!endpoint) throw new AdminError(`client ${client.id} has no callback URL; set one with: callbacks set --key … --url …`);
  return { client, endpoint };
}

const keyOption = () => new Option('--key <api-key>', "the client's API key (or its client id)").makeOptionMandatory();

/** `callbacks …`: operators set, inspect, disable and replay clients' offer-change callbacks (docs/callbacks.md). */
export function callbacksCommand(ctx: () => AdminContext): Command {
  const cmd = new Command('callbacks').description("clients' offer-change callback URLs, secrets and deliveries");
  cmd
    .command('set')
    .description("set (or change, re-enabling) a client's callback URL; a new endpoint prints its signing secret")
    .addOption(keyOption())
    .requiredOption('--url <url>', 'where to POST events (production: public HTTPS only)')
    .addOption(new Option('--format <format>', 'body format').choices(['json', 'xml']).default('json'))
    .option('--json', 'print a JSON object instead of the secret alone', false)
    .action(async (o: { key: string; url: string; format: 'json' | 'xml'; json: boolean }) => {
      const c = ctx();
      const client = await clientOf(c, o.key);
      try {
        await checkCallbackUrl(o.url, c.config.SERVICE_ENVIRONMENT);
      } catch (err) {
        if (err instanceof UnsafeCallbackUrlError) throw new AdminError(`refused: ${err.message}`);
        throw err;
      }
      const { endpoint, secret } = await setEndpoint(c.db, { clientId: client.id, url: o.url, format: o.format });
      if (!secret)
        process.stderr.write('endpoint updated and enabled; its signing secret is unchanged (callbacks rotate-secret makes a new one)\n');
      if (o.json) output({ client_id: client.id, url: endpoint.url, format: endpoint.format, status: endpoint.status, secret });
      else if (secret) output(secret);
    });
  cmd
    .command('show')
    .description("a client's callback endpoint: URL, format, status (disabled with its reason), failures, secret rotation")
    .addOption(keyOption())
    .action(async (o: { key: string }) => {
      const { client, endpoint: e } = await endpointOf(ctx(), o.key);
      const rotating = e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > new Date();
      output({
        client_id: client.id,
        interface: client.interface,
        url: e.url,
        format: e.format,
        status: e.status,
        disabled_reason: e.disabled_reason,
        disabled_at: e.disabled_at,
        consecutive_failures: e.consecutive_failures,
        failing_since: e.failing_since,
        last_success_at: e.last_success_at,
        previous_secret_valid_until: rotating ? e.previous_secret_expires_at : null,
        created_at: e.created_at,
      });
    });
  cmd
    .command('disable')
    .description("stop a client's callbacks; pending deliveries are cancelled (callbacks set re-enables)")
    .addOption(keyOption())
    .option('--reason <reason>', 'why, shown by callbacks show', 'disabled by an operator')
    .action(async (o: { key: string; reason: string }) => {
      const { endpoint } = await endpointOf(ctx(), o.key);
      await disableEndpoint(ctx().db, endpoint.id, o.reason);
      output({ disabled: true, reason: o.reason });
    });
  cmd
    .command('rotate-secret')
    .description('make a new signing secret; the old one keeps signing too for CALLBACK_SECRET_OVERLAP_SECONDS')
    .addOption(keyOption())
    .option('--json', 'print a JSON object instead of the secret alone', false)
    .action(async (o: { key: string; json: boolean }) => {
      const c = ctx();
      const { endpoint } = await endpointOf(c, o.key);
      const { secret, previousValidUntil } = await rotateSecret(c.db, endpoint.id, c.config.CALLBACK_SECRET_OVERLAP_SECONDS);
      process.stderr.write(`the previous secret stays valid until ${previousValidUntil.toISOString()}\n`);
      output(o.json ? { secret, previous_secret_valid_until: previousValidUntil } : secret);
    });
  cmd
    .command('log')
    .description("a client's recent deliveries, newest first: attempts, last status code, next retry")
    .addOption(keyOption())
    .option('--limit <n>', 'how many', (v) => Number.parseInt(v, 10), 20)
    .action(async (o: { key: string; limit: number }) => {
      const { endpoint } = await endpointOf(ctx(), o.key);
      output(await recentDeliveries(ctx().db, endpoint.id, Math.min(Math.max(o.limit || 20, 1), 500)));
    });
  cmd
    .command('replay')
    .description('deliver one event again (same event id), to every endpoint it went to, or only to --key')
    .argument('<event-id>')
    .option('--key <api-key>', "only to this client's endpoint")
    .action(async (eventId: string, o: { key?: string }) => {
      const c = ctx();
      const endpointId = o.key ? (await endpointOf(c, o.key)).endpoint.id : undefined;
      const exists = await c.db.selectFrom('offer_events').select('id').where('id', '=', eventId).executeTakeFirst();
      if (!exists) throw new AdminError(`no event ${eventId}`);
      const { deliveries, lanes } = await replayEvent(c.db, eventId, revenueShares(c.config), endpointId);
      if (!deliveries.length) throw new AdminError(`event ${eventId} has no enabled endpoint to go to${o.key ? ' for this client' : ''}`);
      const temporal = await c.temporal();
      for (const lane of lanes) await wakeLane(temporal, c.config.TEMPORAL_TASK_QUEUE, c.config, lane);
      output({ replayed: eventId, deliveries });
    });
  return cmd;
}
