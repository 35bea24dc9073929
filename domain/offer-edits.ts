import { refuse } from './failures';

/*
 * What an offer's write refuses once store/offers.ts holds its rows: media deleted since the
 * service checked it, an advertiser change that would orphan supplied codes, a name another of
 * the client's advertisers has.
 */

/** Every attachment the offer shows is the client's and live: `gone` is the first that is not. */
export function requireMediaHeld(gone: string | undefined, ids: string[]): void {
  if (gone)
    refuse('invalid_field', `attachment ${gone} is not one of your attachments`, {
      field: `creative.original_media[${ids.indexOf(gone)}].id`,
    });
}

/** An offer with supplied codes keeps its advertiser: its codes are unique per advertiser. */
export function requireAdvertiserKept(changed: boolean, hasSuppliedCodes: boolean): void {
  if (changed && hasSuppliedCodes)
    refuse('invalid_field', 'an offer with supplied voucher codes keeps its advertiser (its codes are unique per advertiser)', {
      field: 'advertiser.id',
    });
}

/** A name another advertiser of the client has is refused: the client sends that advertiser's id instead. */
export function requireAdvertiserNameFree(other: { id: string; name: string } | undefined): void {
  if (other)
    refuse('invalid_field', `another of your advertisers (${other.id}) is named "${other.name}"; send advertiser.id to use it`, {
      field: 'advertiser.name',
      advertiser_id: other.id,
    });
}
