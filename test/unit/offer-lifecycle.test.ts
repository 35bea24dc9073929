import {
  CLIENT_MOVES,
  clientMoveError,
  editError,
  reviewError,
  TERMINAL,
  type ClientStatus,
  type OfferStatus,
} from '../../domain/offer-lifecycle';

const ALL: OfferStatus[] = ['pending', 'approved', 'rejected', 'withdrawn', 'suspended', 'resumed', 'cancelled', 'closed'];
const CLIENT: ClientStatus[] = ['pending', 'withdrawn', 'suspended', 'resumed', 'cancelled'];

describe('offer lifecycle table', () => {
  it("lets the spec's own moves through (§3.1)", () => {
    expect(clientMoveError('withdrawn', 'pending')).toBeUndefined(); // resubmission after edit
    expect(clientMoveError('suspended', 'resumed')).toBeUndefined();
    expect(clientMoveError('approved', 'withdrawn')).toBeUndefined();
    expect(clientMoveError('approved', 'cancelled')).toBeUndefined();
  });

  it('refuses moves out of the final statuses, and moves to the same status', () => {
    for (const to of CLIENT) {
      for (const from of TERMINAL) expect(clientMoveError(from, to)).toMatch(from === to ? /already/ : /cannot change status/);
      expect(clientMoveError(to as OfferStatus, to)).toMatch(/already/);
    }
  });

  it('never lets a client approve its own offer or skip review', () => {
    for (const from of ALL) expect(CLIENT_MOVES[from]).not.toContain('approved' as ClientStatus);
    expect(clientMoveError('rejected', 'pending')).toMatch(/can move to withdrawn, cancelled/);
    expect(clientMoveError('pending', 'resumed')).toBeDefined();
  });

  it('allows edits only while withdrawn and reviews only while pending', () => {
    expect(ALL.filter((s) => !editError(s))).toEqual(['withdrawn']);
    expect(ALL.filter((s) => !reviewError(s))).toEqual(['pending']);
  });
});
