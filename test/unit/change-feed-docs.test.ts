import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_EVENT_TYPES, DISTRIBUTION_EVENT_TYPES, SUBMISSION_EVENT_TYPES, VOUCHER_EVENT_TYPES } from '../../schemas/callback-event';

/** The "Whose events" paragraph of docs/change-feed.md: the one place it says what the feed holds. */
function whoseEvents(): string {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'change-feed.md'), 'utf8');
  const start = doc.indexOf('- **Whose events.**');
  expect(start).toBeGreaterThan(-1);
  return doc.slice(start, doc.indexOf('\n- **', start + 1));
}

describe('docs/change-feed.md', () => {
  it('names every event type the feed hands out, by interface, and the events about no offer (schemas/callback-event.ts decides)', () => {
    const text = whoseEvents();
    for (const type of [...SUBMISSION_EVENT_TYPES, ...DISTRIBUTION_EVENT_TYPES, ...VOUCHER_EVENT_TYPES, ...CLIENT_EVENT_TYPES])
      expect({ type, named: text.includes(`\`${type}\``) }).toEqual({ type, named: true });
  });

  it('does not say redemptions are left out of the feed', () => {
    expect(whoseEvents()).not.toMatch(/redemptions[^.]*not in the feed/i);
  });
});
