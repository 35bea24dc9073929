import { context, propagation, trace } from '@opentelemetry/api';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtelSdk from '@opentelemetry/sdk-node';
import type * as TemporalOtel from '@temporalio/interceptors-opentelemetry';
import type { OpenTelemetryPlugin, OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Config } from './config';

/**
 * OpenTelemetry traces across API → Temporal → activities, on only when OTEL_EXPORTER_OTLP_ENDPOINT
 * names a collector. The API opens a span per request (api/plugins/tracing.ts); the Temporal
 * client interceptor carries its context in the workflow's headers; the SDK's workflow
 * interceptors (deterministic: they export through a sink, never from the workflow sandbox) and
 * activity interceptors continue the same trace in the worker.
 */
export interface Tracing {
  /** For Worker.create: activity and workflow interceptors plus the workflow span sink. */
  workerPlugin: OpenTelemetryPlugin;
  /** For the API's Temporal client: puts the active span's context in workflow headers. */
  clientInterceptor: OpenTelemetryWorkflowClientInterceptor;
  /** Sends every finished span now (tests; shutdown does it too). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let current: { tracing: Tracing; users: number } | undefined;

/**
 * Starts the process's tracing once (the OpenTelemetry API is process-global), or returns
 * undefined when no endpoint is configured. Each caller shuts its use down; the last one stops it.
 */
export function startTracing(config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'>): Tracing | undefined {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  if (current) {
    current.users++;
    return current.tracing;
  }
  // Loaded here, not at the top: the SDK and exporter take noticeable CPU to load (bench/README.md,
  // start-up time), which every start without tracing (the default) would pay for nothing.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { NodeSDK, resources, tracing: sdkTracing } = require('@opentelemetry/sdk-node') as typeof OtelSdk;
  const temporalOtel = require('@temporalio/interceptors-opentelemetry') as typeof TemporalOtel;
  /* eslint-enable @typescript-eslint/no-require-imports */
  // OTLP over HTTP with JSON bodies; the base URL gets the signal's path, as the variable's convention says.
  const exporter = new OTLPTraceExporter({ url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` });
  const spanProcessor = new sdkTracing.BatchSpanProcessor(exporter);
  const resource = new resources.Resource({ 'service.name': config.OTEL_SERVICE_NAME });
  // No auto-instrumentations: they patch modules at require time; the spans we want are the API's
  // own (one per request) and Temporal's.
  const sdk = new NodeSDK({ resource, spanProcessors: [spanProcessor], instrumentations: [], autoDetectResources: false });
  sdk.start();
  const tracing: Tracing = {
    workerPlugin: new temporalOtel.OpenTelemetryPlugin({ resource, spanProcessor }),
    clientInterceptor: new temporalOtel.OpenTelemetryWorkflowClientInterceptor(),
    flush: () => spanProcessor.forceFlush(),
    async shutdown() {
      if (!current || --current.users > 0) return;
      current = undefined;
      await sdk.shutdown().catch(() => undefined);
      // Unregister the globals, so a later start (another test file in this process) registers afresh.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  current = { tracing, users: 1 };
  return tracing;
}
