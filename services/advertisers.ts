import type { ServiceDeps } from './deps';
import type { Page, Paged } from '../domain/paging';
import { listAdvertisers as listAdvertiserRows } from '../store/advertisers';
import { toAdvertiser } from '../schemas/advertiser';

/*
 * The submission client's advertisers. They come into being with the first offer that names them
 * and keep their id across renames (store/advertisers.ts); an offer names one by `advertiser.id`.
 */

/** One page of this client's advertisers, by name. */
export async function listAdvertisers(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  page: Page,
): Promise<Paged<ReturnType<typeof toAdvertiser>>> {
  const { rows, total } = await listAdvertiserRows(deps.db, clientId, page);
  return { rows: rows.map(toAdvertiser), total };
}
