import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedBinaryPath, ensureGoBinary, TEMPORAL_SERVER } from '../../infra/local/go-binaries';
import { clusterClientEnv } from '../../infra/local/temporal-cluster';
import { clusterConfig, clusterDatabaseNames, TEMPORAL_SERVICES, type ClusterPorts } from '../../infra/local/temporal-cluster-config';

const certificates = {
  caCert: '/tls/ca.crt',
  serverCert: '/tls/server.crt',
  serverKey: '/tls/server.key',
  clientCert: '/tls/client.crt',
  clientKey: '/tls/client.key',
};
const ports = Object.fromEntries(TEMPORAL_SERVICES.map((s, i) => [s, { grpc: 7000 + i, membership: 8000 + i }])) as ClusterPorts;

describe("the Temporal cluster's configuration (infra/local/temporal-cluster-config.ts)", () => {
  const config = clusterConfig({
    ports,
    database: { host: '127.0.0.1', port: 5432, user: 'temporal', password: 'pw' },
    certificates,
    dynamicConfigFile: '/data/dynamic.yaml',
  }) as any;

  it('requires a client certificate signed by the CA at the frontend and between the services', () => {
    for (const group of [config.global.tls.internode, config.global.tls.frontend]) {
      expect(group.server).toEqual({
        certFile: certificates.serverCert,
        keyFile: certificates.serverKey,
        requireClientAuth: true,
        clientCaFiles: [certificates.caCert],
      });
      expect(group.client).toEqual({ serverName: 'localhost', rootCaFiles: [certificates.caCert] });
    }
    expect(config.global.tls.systemWorker).toMatchObject({ certFile: certificates.clientCert, keyFile: certificates.clientKey });
    expect(config.global.authorization).toBeUndefined();
  });

  it('gives each service its own ports, both stores to Postgres, and the system worker the frontend', () => {
    expect(config.services.history.rpc).toEqual({ grpcPort: 7001, membershipPort: 8001, bindOnLocalHost: true });
    expect(config.publicClient.hostPort).toBe('127.0.0.1:7000');
    const stores = config.persistence.datastores;
    expect([stores['postgres-default'].sql.databaseName, stores['postgres-visibility'].sql.databaseName]).toEqual([
      'temporal',
      'temporal_visibility',
    ]);
    expect(stores['postgres-default'].sql).toMatchObject({ pluginName: 'postgres12', connectAddr: '127.0.0.1:5432', user: 'temporal' });
    // Written as JSON, which the server reads as YAML.
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
  });

  it("turns the server's JWT authorizer on only with a key source: the API key is the gate, the system worker uses the internal frontend", () => {
    const withKeys = clusterConfig({
      ports: { ...ports, 'internal-frontend': { grpc: 7010, membership: 8010 } },
      database: config.persistence.datastores['postgres-default'].sql,
      databases: clusterDatabaseNames('temporal_jwt'),
      certificates,
      dynamicConfigFile: '/d',
      jwtKeySourceUri: 'http://127.0.0.1:1/jwks',
    }) as any;
    expect(withKeys.global.authorization).toMatchObject({
      authorizer: 'default',
      claimMapper: 'default',
      permissionsClaimName: 'permissions',
      jwtKeyProvider: { keySourceURIs: ['http://127.0.0.1:1/jwks'] },
    });
    expect(withKeys.services['internal-frontend'].rpc).toEqual({ grpcPort: 7010, membershipPort: 8010, bindOnLocalHost: true });
    expect(withKeys.global.tls.frontend.server).toEqual({ certFile: certificates.serverCert, keyFile: certificates.serverKey });
    expect(withKeys.global.tls.internode.server.requireClientAuth).toBe(true);
    expect(withKeys.global.tls.systemWorker).toBeUndefined();
    expect(withKeys.publicClient).toBeUndefined();
    const stores = withKeys.persistence.datastores;
    expect([stores['postgres-default'].sql.databaseName, stores['postgres-visibility'].sql.databaseName]).toEqual([
      'temporal_jwt',
      'temporal_jwt_visibility',
    ]);
    expect(config.services['internal-frontend']).toBeUndefined();
  });

  it("names a client's settings with Temporal's environment variables", () => {
    expect(clusterClientEnv('127.0.0.1:7000', 'default', certificates)).toEqual({
      TEMPORAL_ADDRESS: '127.0.0.1:7000',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKey,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCert,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    // With API keys: the server's CA, no client certificate (each client brings its TEMPORAL_API_KEY).
    expect(clusterClientEnv('127.0.0.1:7000', 'default', certificates, true)).toEqual({
      TEMPORAL_ADDRESS: '127.0.0.1:7000',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCert,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
  });
});

describe('the Temporal server build (infra/local/go-binaries.ts)', () => {
  it('is cached as temporal-server-<version>/server with the sql tool beside it, and found there without a build', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'go-binaries-'));
    const before = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      const server = cachedBinaryPath(TEMPORAL_SERVER);
      expect(server).toBe(path.join(cache, 'offer-marketplace', 'bin', 'temporal-server-v1.32.2', 'server'));
      expect(cachedBinaryPath(TEMPORAL_SERVER, 'go.temporal.io/server/cmd/tools/sql')).toBe(path.join(path.dirname(server), 'sql'));
      expect(TEMPORAL_SERVER.toolchain).toBe('go1.27.3');
      fs.mkdirSync(path.dirname(server), { recursive: true });
      for (const f of ['server', 'sql']) fs.writeFileSync(path.join(path.dirname(server), f), '');
      await expect(ensureGoBinary(TEMPORAL_SERVER, { PATH: process.env.PATH })).resolves.toBe(server);
    } finally {
      if (before === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = before;
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
