// Runs the slowest test files first, so that the last minutes of a lane are not one long file on one
// jest worker while the other waits. Jest does this itself from its cache of earlier runs; a clean
// clone (CI) has no cache, and jest's fallback, the largest file first, put the 65-second chaos file
// last. Seconds each file took in a stack-lane run (2026-11-28, two jest workers); files not listed
// count as quick. A stale figure only orders a file worse, it never fails one.
const Sequencer = require('@jest/test-sequencer').default;

const SECONDS = {
  'test/stack/e2e/chaos.test.ts': 65,
  'test/stack/api/workflow-deadlines.test.ts': 51,
  'test/stack/e2e/voucher-import-crash.test.ts': 50,
  'test/stack/api/schema-values-property.test.ts': 47,
  'test/stack/e2e/npm-start.test.ts': 45,
  'test/stack/e2e/deployment.test.ts': 37,
  'test/stack/e2e/order-crash.test.ts': 36,
  'test/stack/e2e/callbacks.test.ts': 35,
  'test/stack/e2e/admin-cli.test.ts': 35,
  'test/stack/e2e/pages-accessibility.test.ts': 33,
  'test/stack/api/offer-imports.test.ts': 32,
  'test/stack/api/tracing.test.ts': 29,
  'test/stack/api/advertiser-vouchers.test.ts': 25,
  'test/stack/api/ops-console.test.ts': 23,
  'test/stack/e2e/ops-console.test.ts': 22,
  'test/stack/e2e/merchant-counter-browser.test.ts': 21,
  'test/stack/api/openapi.test.ts': 21,
};

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      return cached != null ? cached / 1000 : (SECONDS[test.path.slice(test.context.config.rootDir.length + 1)] ?? 0);
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    // As jest's own: a file that failed last time first, for the quickest word on it.
    const failed = (test) => (this.hasFailed(test) ? 1 : 0);
    return [...tests].sort((a, b) => failed(b) - failed(a) || seconds(b) - seconds(a) || size(b) - size(a));
  }
}

module.exports = SlowFirstSequencer;
