import type { Certificates } from './certificates';

/*
 * The Temporal server's configuration for the cluster of infra/local/temporal-cluster.ts: the layout of
 * the server module's config/development-postgres12.yaml (four services, Postgres for both stores),
 * with mTLS on between the services and at the frontend. Written as JSON, which is YAML too: the
 * server reads it as its YAML config file, and we need no YAML writer for it.
 */

export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];
/**
 * The frontend the server's own system worker calls when authorization is on (Temporal ≥ 1.20): it
 * skips the authorizer, so the system worker needs no API key of its own. Only with `jwtKeySourceUri`.
 */
export const INTERNAL_FRONTEND = 'internal-frontend';
export type ServerService = TemporalService | typeof INTERNAL_FRONTEND;

/** The PEM files of the cluster's certificates (infra/local/certificates.ts makes them): the CA's key is not needed. */
export type ClusterCertificates = Omit<Certificates, 'caKey'>;

interface ServicePorts {
  grpc: number;
  membership: number;
}
/** Each service's gRPC port and membership (ringpop) port; the internal frontend's with API keys on. */
export type ClusterPorts = Record<TemporalService, ServicePorts> & { [INTERNAL_FRONTEND]?: ServicePorts };

export interface ClusterDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The names of the two databases the server keeps: its state and the visibility store (workflow lists and search). */
export interface ClusterDatabaseNames {
  default: string;
  visibility: string;
}

/** The databases of a cluster named `name` (`temporal` by default), so that two clusters can share one Postgres. */
export function clusterDatabaseNames(name = 'temporal'): ClusterDatabaseNames {
  return { default: name, visibility: `${name}_visibility` };
}

export const CLUSTER_DATABASES: ClusterDatabaseNames = clusterDatabaseNames();

/** The name the server certificate is valid for, which every client checks. */
export const CLUSTER_SERVER_NAME = 'localhost';

export interface ClusterConfigOptions {
  ports: ClusterPorts;
  database: ClusterDatabase;
  /** Default CLUSTER_DATABASES. */
  databases?: ClusterDatabaseNames;
  certificates: ClusterCertificates;
  dynamicConfigFile: string;
  /**
   * Where the server fetches the keys that sign API keys (JWTs, as a JWKS), turning on its default
   * claim mapper and authorizer; without it any client with a certificate from the CA is let in.
   * With it the API key is the gate, as at Temporal Cloud: the frontend serves TLS without asking
   * for a client certificate, and the system worker goes through the internal frontend.
   */
  jwtKeySourceUri?: string;
}

function datastore(db: ClusterDatabase, databaseName: string, maxConns: number) {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${db.host}:${db.port}`,
      connectProtocol: 'tcp',
      user: db.user,
      password: db.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

function tls(c: ClusterCertificates, apiKeys: boolean) {
  const server = { certFile: c.serverCert, keyFile: c.serverKey, requireClientAuth: true, clientCaFiles: [c.caCert] };
  const client = { serverName: CLUSTER_SERVER_NAME, rootCaFiles: [c.caCert] };
  // History, matching and the frontends to one another: each presents the server certificate.
  const internode = { server, client };
  // With API keys, a client at the frontend shows its key, not a certificate.
  if (apiKeys) return { internode, frontend: { server: { certFile: c.serverCert, keyFile: c.serverKey }, client } };
  return {
    internode,
    // Clients at the frontend must present a certificate signed by the CA.
    frontend: { server, client },
    // The system worker (the worker service's own workflows) is such a client.
    systemWorker: { certFile: c.clientCert, keyFile: c.clientKey, client },
  };
}

/** The services of the configuration: the four, and the internal frontend when API keys are on. */
export function clusterServices(o: { jwtKeySourceUri?: string }): ServerService[] {
  return o.jwtKeySourceUri ? [...TEMPORAL_SERVICES, INTERNAL_FRONTEND] : [...TEMPORAL_SERVICES];
}

/** The whole configuration, as the server reads it from `--config-file`. */
export function clusterConfig(o: ClusterConfigOptions): Record<string, unknown> {
  const service = (s: ServerService) => {
    const ports = o.ports[s];
    if (!ports) throw new Error(`temporal cluster: no ports for the ${s} service`);
    return { rpc: { grpcPort: ports.grpc, membershipPort: ports.membership, bindOnLocalHost: true } };
  };
  const frontend = `127.0.0.1:${o.ports.frontend.grpc}`;
  const databases = o.databases ?? CLUSTER_DATABASES;
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(o.database, databases.default, 10),
        'postgres-visibility': datastore(o.database, databases.visibility, 4),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      tls: tls(o.certificates, Boolean(o.jwtKeySourceUri)),
      ...(o.jwtKeySourceUri
        ? {
            authorization: {
              jwtKeyProvider: { keySourceURIs: [o.jwtKeySourceUri], refreshInterval: '1m' },
              permissionsClaimName: 'permissions',
              authorizer: 'default',
              claimMapper: 'default',
            },
          }
        : {}),
    },
    services: Object.fromEntries(clusterServices(o).map((s) => [s, service(s)])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: frontend } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    // The system worker reaches the frontend here (over the systemWorker TLS settings above); with
    // API keys it finds the internal frontend through the membership ring instead.
    ...(o.jwtKeySourceUri ? {} : { publicClient: { hostPort: frontend } }),
    dynamicConfigClient: { filepath: o.dynamicConfigFile, pollInterval: '10s' },
  };
}
