// Per test file: the suite's defaults, which a test may override by building its own config.
process.env.LOG_LEVEL ??= 'silent';
// Tests fire many requests per second; the rate-limit test builds an app with the real limit.
process.env.RATE_LIMIT_PER_SECOND = process.env.TEST_RATE_LIMIT ?? '10000';
// With jest workers, each has a database of its own beside the stack's (test/setup/global-setup.ts).
if (process.env.TEST_WORKER_DATABASES && process.env.TEST_BASE_DATABASE_URL) {
  const url = new URL(process.env.TEST_BASE_DATABASE_URL);
  url.pathname = `${url.pathname}_w${process.env.JEST_WORKER_ID ?? '1'}`;
  process.env.DATABASE_URL = url.toString();
}
