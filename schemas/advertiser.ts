import { z } from 'zod';
import type { AdvertiserRow } from '../store/database';
import { Timestamp } from './common';
import { listEnvelope } from './envelope';

/** An advertiser of the submission client: the id offers name it by (`advertiser.id`), kept across renames. */
export const AdvertiserSummary = z.object({
  id: z.string(),
  name: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AdvertiserList = listEnvelope('advertisers', AdvertiserSummary);

/** An advertiser row as the submission interface shows it. */
export function toAdvertiser(row: AdvertiserRow): z.output<typeof AdvertiserSummary> {
  return { id: row.id, name: row.name, created_at: row.created_at, updated_at: row.updated_at };
}
