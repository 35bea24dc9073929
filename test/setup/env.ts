// Per test file: the suite's defaults, which a test may override by building its own config.
process.env.LOG_LEVEL ??= 'silent';
// Tests fire many requests per second; the rate-limit test builds an app with the real limit.
process.env.RATE_LIMIT_PER_SECOND = process.env.TEST_RATE_LIMIT ?? '10000';
