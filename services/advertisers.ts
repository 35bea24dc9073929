import type { ServiceDeps } from './deps';
import type { Page, Paged } from '../domain/paging';
import { invalidField, notFound } from '../domain/failures';
import { canonicalTimeZone } from '../domain/time-zones';
import { findAdvertiser, listAdvertisers as listAdvertiserRows, setAdvertiserTimeZone } from '../store/advertisers';
import { toAdvertiser } from '../schemas/advertiser';

/*
 * The submission client's advertisers. They come into being with the first offer that names them
 * and keep their id across renames (store/advertisers.ts); an offer names one by `advertiser.id`.
 * The client sets an advertiser's time zone, the day its counter lives by (domain/time-zones.ts).
 */

type Advertiser = ReturnType<typeof toAdvertiser>;

/** One page of this client's advertisers, by name. */
export async function listAdvertisers(deps: Pick<ServiceDeps, 'db'>, clientId: string, page: Page): Promise<Paged<Advertiser>> {
  const { rows, total } = await listAdvertiserRows(deps.db, clientId, page);
  return { rows: rows.map(toAdvertiser), total };
}

/** One of this client's advertisers; not_found for another client's. */
export async function getAdvertiser(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<Advertiser> {
  const row = await findAdvertiser(deps.db, clientId, id);
  if (!row) throw notFound('advertiser');
  return toAdvertiser(row);
}

/** Sets the advertiser's time zone, stored in Intl's spelling of the name. */
export async function changeAdvertiser(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  id: string,
  change: { time_zone: string },
): Promise<Advertiser> {
  const zone = canonicalTimeZone(change.time_zone);
  if (!zone) throw invalidField('advertiser.time_zone', 'not an IANA time zone: send a name such as Europe/Paris or UTC');
  const row = await setAdvertiserTimeZone(deps.db, clientId, id, zone);
  if (!row) throw notFound('advertiser');
  return toAdvertiser(row);
}
