/*
 * The Temporal server's configuration for the cluster of infra/local/temporal-cluster.ts: the layout of
 * the server module's config/development-postgres12.yaml (four services, Postgres for both stores),
 * with mTLS on between the services and at the frontend. Written as JSON, which is YAML too: the
 * server reads it as its YAML config file, and we need no YAML writer for it.
 */

export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/** The PEM files of the cluster's certificates (infra/local/certificates.ts makes them). */
export interface ClusterCertificates {
  /** The authority every party trusts, for servers and clients alike. */
  caCert: string;
  /** What each service presents, as a server and to the others as a client (serverAuth and clientAuth). */
  serverCert: string;
  serverKey: string;
  /** What the clients present: the service's API and workers, the Temporal CLI, the system worker. */
  clientCert: string;
  clientKey: string;
}

/** Each service's gRPC port and membership (ringpop) port. */
export type ClusterPorts = Record<TemporalService, { grpc: number; membership: number }>;

export interface ClusterDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The two databases the server keeps: its state and the visibility store (workflow lists and search). */
export const CLUSTER_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;

/** The name the server certificate is valid for, which every client checks. */
export const CLUSTER_SERVER_NAME = 'localhost';

export interface ClusterConfigOptions {
  ports: ClusterPorts;
  database: ClusterDatabase;
  certificates: ClusterCertificates;
  dynamicConfigFile: string;
  /**
   * Where the server fetches the keys that sign API keys (JWTs), turning on its default claim
   * mapper and authorizer; without it any client with a certificate from the CA is let in.
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

function tls(c: ClusterCertificates) {
  const server = { certFile: c.serverCert, keyFile: c.serverKey, requireClientAuth: true, clientCaFiles: [c.caCert] };
  const client = { serverName: CLUSTER_SERVER_NAME, rootCaFiles: [c.caCert] };
  return {
    // History, matching and the frontend to one another: each presents the server certificate.
    internode: { server, client },
    // Clients at the frontend must present a certificate signed by the CA.
    frontend: { server, client },
    // The system worker (the worker service's own workflows) is such a client.
    systemWorker: { certFile: c.clientCert, keyFile: c.clientKey, client },
  };
}

/** The whole configuration, as the server reads it from `--config-file`. */
export function clusterConfig(o: ClusterConfigOptions): Record<string, unknown> {
  const service = (s: TemporalService) => ({
    rpc: { grpcPort: o.ports[s].grpc, membershipPort: o.ports[s].membership, bindOnLocalHost: true },
  });
  const frontend = `127.0.0.1:${o.ports.frontend.grpc}`;
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(o.database, CLUSTER_DATABASES.default, 10),
        'postgres-visibility': datastore(o.database, CLUSTER_DATABASES.visibility, 4),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      tls: tls(o.certificates),
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
    services: Object.fromEntries(TEMPORAL_SERVICES.map((s) => [s, service(s)])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: frontend } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    // The system worker reaches the frontend here (over the systemWorker TLS settings above).
    publicClient: { hostPort: frontend },
    dynamicConfigClient: { filepath: o.dynamicConfigFile, pollInterval: '10s' },
  };
}
