import path from 'node:path';
import { ConfigError, loadConfig } from '../../infra/config';

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
    ['CALLBACK_RETRY_SCHEDULE', '5,,10'],
    ['RUN_WORKER', 'yes'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });

  it('keeps the review console closed unless both OPS_USERNAME and OPS_PASSWORD are set', () => {
    expect(loadConfig({}).OPS_USERNAME).toBeUndefined();
    expect(loadConfig({ OPS_USERNAME: 'ana', OPS_PASSWORD: 'twelve chars!' })).toMatchObject({
      OPS_USERNAME: 'ana',
      OPS_PASSWORD: 'twelve chars!',
    });
    expect(() => loadConfig({ OPS_USERNAME: 'ana' })).toThrow(/OPS_USERNAME, OPS_PASSWORD/);
    expect(() => loadConfig({ OPS_PASSWORD: 'twelve chars!' })).toThrow(/OPS_USERNAME, OPS_PASSWORD/);
    expect(() => loadConfig({ OPS_USERNAME: 'ana', OPS_PASSWORD: 'short' })).toThrow(/OPS_PASSWORD:/);
    expect(() => loadConfig({ OPS_USERNAME: 'a:b', OPS_PASSWORD: 'twelve chars!' })).toThrow(/OPS_USERNAME:/);
  });

  it('requires S3 keys with S3_ENDPOINT', () => {
    expect(() => loadConfig({ S3_ENDPOINT: 'http://s3.example:9000' })).toThrow(/S3_ACCESS_KEY/);
  });
});
