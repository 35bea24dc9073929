import { z } from 'zod';
import type { AdvertiserRow } from '../store/database';
import { canonicalTimeZone } from '../domain/time-zones';
import { Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';

/** An IANA time zone name (`Europe/Paris`, `America/New_York`, `UTC`), checked against the tz database Intl carries. */
const TimeZone = z
  .string()
  .max(64)
  .refine((name) => canonicalTimeZone(name) !== undefined, { message: 'not an IANA time zone: send a name such as Europe/Paris or UTC' })
  .describe('IANA time zone of the shop: the merchant counter\'s "today" follows it');

/** An advertiser of the submission client: the id offers name it by (`advertiser.id`), kept across renames. */
export const AdvertiserSummary = z.object({
  id: z.string(),
  name: z.string(),
  time_zone: z.string().describe('IANA time zone of the shop (UTC until set)'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AdvertiserList = listEnvelope('advertisers', AdvertiserSummary);
export const AdvertiserResponse = okEnvelope('advertiser', AdvertiserSummary);
/** `PUT /advertisers/:id`: what a client sets on its advertiser (its name comes from its offers). */
export const AdvertiserUpdateBody = wrappedBody('advertiser', z.object({ time_zone: TimeZone }));

/** An advertiser row as the submission interface shows it. */
export function toAdvertiser(row: AdvertiserRow): z.output<typeof AdvertiserSummary> {
  return { id: row.id, name: row.name, time_zone: row.time_zone, created_at: row.created_at, updated_at: row.updated_at };
}
