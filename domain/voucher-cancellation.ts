import { refuse } from './failures';

/** A voucher is cancelled while acquired and unused: a gift card partly spent (a live redemption) counts as used. */
export function requireCancellable(status: string, partlyRedeemed: boolean): void {
  if (status !== 'acquired') refuse('conflict', `the voucher is already ${status}`);
  if (partlyRedeemed) refuse('conflict', 'the gift card has been partly redeemed: roll its redemptions back before cancelling it');
}
