import { requireAttachmentUnused } from '../../domain/attachment-files';
import { emailSignedUpBefore } from '../../domain/developer-signups';
import { Failure } from '../../domain/failures';
import { requireAdvertiserKept, requireAdvertiserNameFree, requireMediaHeld } from '../../domain/offer-edits';
import { requireSellableForHold, requireStockForChange, requireStockToHold, reservationChangeOf } from '../../domain/reservation-rules';
import { codeSuppliedMeanwhile, requireAppendable, requireCodesFree } from '../../domain/supplied-codes';
import { requireCancellable } from '../../domain/voucher-cancellation';

/*
 * The rules store/ applies under its row locks, decided here without a database (issue 48: store/
 * reads, locks and writes). Each refuses with the code and field a client is answered with, and lets
 * the allowed case through.
 */

/** The refusal `run` throws, as code, message and extra fields; undefined when it lets it through. */
function refusalOf(run: () => unknown): { code: string; message: string; extra: Record<string, unknown> } | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    const { code: _c, message: _m, ...extra } = err.details[0];
    return { code: err.code, message: err.message, extra };
  }
}

describe('rules store/ applies', () => {
  it('a hold needs a sellable offer with enough units of a stock limit', () => {
    expect(refusalOf(() => requireSellableForHold('off_1', undefined, 'is not available'))).toMatchObject({
      code: 'invalid_field',
      message: 'offer off_1 is not available',
      extra: { field: 'offer_id' },
    });
    expect(refusalOf(() => requireSellableForHold('off_1', { id: 'off_1' }, undefined))).toBeUndefined();
    expect(refusalOf(() => requireStockToHold('off_1', null, 1))).toMatchObject({
      code: 'invalid_field',
      extra: { field: 'quantity_reserved' },
    });
    expect(refusalOf(() => requireStockToHold('off_1', 2, 3))).toMatchObject({ code: 'insufficient_stock', extra: { available: 2 } });
    expect(refusalOf(() => requireStockToHold('off_1', 3, 3))).toBeUndefined();
  });

  it('a change keeps the window forwards and the quantity at or above what is sold', () => {
    const res = { status: 'active', start_date: '2026-12-01', end_date: '2026-12-10', quantity_reserved: 5, quantity_in_stock: 2 };
    expect(reservationChangeOf(res, { quantity_reserved: 7 })).toEqual({ start: '2026-12-01', end: '2026-12-10', delta: 2 });
    expect(reservationChangeOf(res, { quantity_reserved: 3, end_date: '2026-12-01' })).toEqual({
      start: '2026-12-01',
      end: '2026-12-01',
      delta: -2,
    });
    expect(refusalOf(() => reservationChangeOf({ ...res, status: 'expired' }, {}))?.code).toBe('invalid_state_transition');
    expect(refusalOf(() => reservationChangeOf(res, { end_date: '2026-11-30' }))).toMatchObject({ extra: { field: 'end_date' } });
    expect(refusalOf(() => reservationChangeOf(res, { quantity_reserved: 2 }))).toMatchObject({
      code: 'invalid_state_transition',
      message: expect.stringContaining('3 unit(s) of this reservation are already sold'),
    });
    expect(refusalOf(() => requireStockForChange({ id: 'off_1', quantity_in_stock: 1 }, 2))?.code).toBe('insufficient_stock');
    expect(refusalOf(() => requireStockForChange({ id: 'off_1', quantity_in_stock: 1 }, -4))).toBeUndefined();
  });

  it('an offer write names the missing medium, keeps an advertiser with supplied codes and a name unique', () => {
    expect(refusalOf(() => requireMediaHeld('att_b', ['att_a', 'att_b']))).toMatchObject({
      extra: { field: 'creative.original_media[1].id' },
    });
    expect(refusalOf(() => requireMediaHeld(undefined, ['att_a']))).toBeUndefined();
    expect(refusalOf(() => requireAdvertiserKept(true, true))).toMatchObject({ extra: { field: 'advertiser.id' } });
    expect([refusalOf(() => requireAdvertiserKept(true, false)), refusalOf(() => requireAdvertiserKept(false, true))]).toEqual([
      undefined,
      undefined,
    ]);
    expect(refusalOf(() => requireAdvertiserNameFree({ id: 'adv_2', name: 'Bakery' }))).toMatchObject({
      extra: { field: 'advertiser.name', advertiser_id: 'adv_2' },
    });
    expect(refusalOf(() => requireAdvertiserNameFree(undefined))).toBeUndefined();
  });

  it('supplied codes: none taken before, appended to a withdrawn supplied offer only, never more than are left', () => {
    const taken = [{ redemption_code: 'A', offer_id: 'off_1' }];
    expect(refusalOf(() => requireCodesFree(taken, 20))).toMatchObject({
      message: expect.stringMatching(/: 1 code\(s\).*A \(offer off_1\)/),
      extra: { codes: ['A'] },
    });
    expect(refusalOf(() => requireCodesFree(taken, 1))?.message).toMatch(/at least 1 code/);
    expect(refusalOf(() => requireCodesFree([], 20))).toBeUndefined();
    expect(refusalOf(codeSuppliedMeanwhile)).toMatchObject({ code: 'invalid_field', extra: { field: 'vouchers' } });
    expect(refusalOf(() => requireAppendable('active', true))).toMatchObject({
      code: 'invalid_state_transition',
      extra: { status: 'active' },
    });
    expect(refusalOf(() => requireAppendable('withdrawn', false))).toMatchObject({ code: 'invalid_field' });
    expect(refusalOf(() => requireAppendable('withdrawn', true))).toBeUndefined();
  });

  it('an attachment in use, a used voucher and a repeated sign-up are refused', () => {
    expect(refusalOf(() => requireAttachmentUnused('att_1', ['off_1', 'off_2'], 2))).toMatchObject({
      code: 'attachment_in_use',
      message: expect.stringContaining('at least 2 offer(s)'),
      extra: { offer_ids: ['off_1', 'off_2'] },
    });
    expect(refusalOf(() => requireAttachmentUnused('att_1', [], 2))).toBeUndefined();
    expect(refusalOf(() => requireCancellable('redeemed', false))?.message).toBe('the voucher is already redeemed');
    expect(refusalOf(() => requireCancellable('acquired', true))?.message).toMatch(/partly redeemed/);
    expect(refusalOf(() => requireCancellable('acquired', false))).toBeUndefined();
    expect(refusalOf(emailSignedUpBefore)).toMatchObject({ code: 'duplicate', extra: { field: 'email' } });
  });
});
