import { checkEndpointShape } from '../../services/callbacks';
import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_EVENT_TYPES, receivableEventTypes } from '../../schemas/callback-event';
import { Failure } from '../../domain/failures';

describe("a callback endpoint's settings (docs/callbacks.md, Endpoint settings)", () => {
  it('accepts the types its interface receives, dropping repeats, and leaves out what was not given', () => {
    expect(checkEndpointShape('distribution', { eventTypes: ['offer.published', 'offer.closed', 'offer.published'] })).toEqual({
      eventTypes: ['offer.published', 'offer.closed'],
    });
    expect(checkEndpointShape('submission', {})).toEqual({});
    expect(checkEndpointShape('submission', { eventTypes: [], maxPerSecond: null, description: '' })).toEqual({
      eventTypes: [],
      maxPerSecond: null,
      description: null,
    });
  });

  it.each([
    ['submission', 'offer.changed'],
    ['distribution', 'offer.created'],
    ['distribution', 'offer.review_overdue'],
    // A distribution client never imports: an import's end never reaches it (docs/callbacks.md, Who receives which events).
    ['distribution', 'voucher_import.completed'],
    ['distribution', 'offer_import.completed'],
    ['submission', 'nonsense'],
  ] as const)('refuses a %s endpoint the type %s, naming it', (iface, type) => {
    let failure: Failure | undefined;
    try {
      checkEndpointShape(iface, { eventTypes: ['offer.closed', type] });
    } catch (err) {
      failure = err as Failure;
    }
    expect(failure).toBeInstanceOf(Failure);
    expect(failure!.details[0]).toMatchObject({ code: 'invalid_field', field: 'event_types' });
    expect(failure!.message).toContain(`unknown for a ${iface} client: ${type};`);
  });

  it('both interfaces may take their client events, endpoint.disabled included; the import events only a submission client', () => {
    for (const iface of ['submission', 'distribution'] as const)
      expect(receivableEventTypes(iface)).toEqual(expect.arrayContaining(['statement.ready', 'endpoint.disabled', 'offer.closed']));
    expect(receivableEventTypes('submission')).toEqual(expect.arrayContaining(['voucher_import.completed', 'offer_import.completed']));
  });

  it("docs/callbacks.md's table says who receives each client event", () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'callbacks.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Who receives which events'), doc.indexOf('### Voucher events'));
    for (const type of CLIENT_EVENT_TYPES) expect({ type, listed: table.includes(`\`${type}\``) }).toEqual({ type, listed: true });
  });

  it.each([0, 101, 2.5, Number.NaN])('refuses max_per_second %p', (n) => {
    expect(() => checkEndpointShape('submission', { maxPerSecond: n })).toThrow(/max_per_second: must be a whole number from 1 to 100/);
  });

  it('refuses a description over 500 characters', () => {
    expect(() => checkEndpointShape('submission', { description: 'x'.repeat(501) })).toThrow(/description: must be at most 500/);
    expect(checkEndpointShape('submission', { description: 'x'.repeat(500) }).description).toHaveLength(500);
  });
});
