import path from 'node:path';
import { ConfigError, loadConfig } from '../../platform/config';

describe('configuration', () => {
  it('applies the contract defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.SERVICE_ENVIRONMENT).toBe('sandbox');
    expect(c.RATE_LIMIT_PER_SECOND).toBe(3);
    expect(c.DATA_DIR).toBe(path.resolve('.data'));
    expect(c.CALLBACK_RETRY_SCHEDULE).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
  });

  it.each([
    ['PORT', 'abc'],
    ['SERVICE_ENVIRONMENT', 'staging'],
    ['RATE_LIMIT_PER_SECOND', '0'],
    ['DATABASE_URL', 'not a url'],
    ['RUN_WORKER', 'yes'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });

  it('runs the Versity S3 gateway unless EMBEDDED_S3 picks MinIO', () => {
    expect(loadConfig({})).toMatchObject({ EMBEDDED_S3: 'versitygw', EMBEDDED_S3_PORT: 9000 });
    expect(loadConfig({ EMBEDDED_S3: 'minio' }).EMBEDDED_S3).toBe('minio');
    expect(() => loadConfig({ EMBEDDED_S3: 'ceph' })).toThrow(/EMBEDDED_S3:/);
    expect(() => loadConfig({ EMBEDDED_S3_PORT: '0' })).toThrow(/EMBEDDED_S3_PORT:/);
  });

  it('refuses to start with a removed or renamed setting, naming what replaced it', () => {
    expect(() => loadConfig({ MINIO_PORT: '9100' })).toThrow(/MINIO_PORT: renamed EMBEDDED_S3_PORT/);
    expect(() => loadConfig({ OPS_USERS: 'ana:x', OPS_PASSWORD: 'twelve chars!' })).toThrow(
      /OPS_PASSWORD: .*ops users add NAME[\s\S]*OPS_USERS: .*ops users add NAME/,
    );
    expect(() => loadConfig({ CALLBACK_RETRY_SCHEDULE: '1,1' })).toThrow(/CALLBACK_RETRY_SCHEDULE: no longer a setting: a fixed value/);
    expect(() => loadConfig({ TEMPORAL_UI_PORT: '8233' })).toThrow(/TEMPORAL_UI_PORT: .*TEMPORAL_DEV_PORT \+ 1000/);
    expect(() => loadConfig({ VERSITYGW_BIN: '/usr/bin/versitygw' })).toThrow(/VERSITYGW_BIN: .*on PATH/);
    // Empty counts as unset, as for every setting.
    expect(loadConfig({ MINIO_PORT: '' }).EMBEDDED_S3_PORT).toBe(9000);
  });

  it('derives what follows from another setting', () => {
    expect(loadConfig({ TEMPORAL_DEV_PORT: '17233' }).TEMPORAL_UI_PORT).toBe(18233);
    expect(loadConfig({}).REQUIRE_HTTPS).toBe(false);
    expect(loadConfig({ SERVICE_ENVIRONMENT: 'production' }).REQUIRE_HTTPS).toBe(true);
  });

  it('TRUST_PROXY is off by default, and takes a hop count or proxy addresses, never "everyone"', () => {
    expect(loadConfig({}).TRUST_PROXY).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,fd00::/8' }).TRUST_PROXY).toEqual(['10.0.0.1', '10.1.0.0/16', 'fd00::/8']);
    for (const bad of ['true', '10.0.0.0/33', 'proxy.example', '1.2.3'])
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY:/);
  });

  it('PUBLIC_BASE_URL is an http(s) URL kept without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://offers.example.com/' }).PUBLIC_BASE_URL).toBe('https://offers.example.com');
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'javascript:alert(1)' })).toThrow(/PUBLIC_BASE_URL:/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN:/);
  });

  it('requires S3 keys with S3_ENDPOINT', () => {
    expect(() => loadConfig({ S3_ENDPOINT: 'http://s3.example:9000' })).toThrow(/S3_ACCESS_KEY/);
  });
});
