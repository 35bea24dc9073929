import { TIMELINE_LIMIT, type ReviewTimelineEntry } from './offer-review-messages';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Operators' view of one offer's review (reviewTimelineQuery), carried across continue-as-new. */
export class ReviewTimeline {
  constructor(readonly entries: ReviewTimelineEntry[] = []) {}

  /** Adds a step at the workflow task's time, keeping the last TIMELINE_LIMIT. */
  note(entry: DistributiveOmit<ReviewTimelineEntry, 'at'>): void {
    this.entries.push({ ...entry, at: new Date().toISOString() } as ReviewTimelineEntry);
    if (this.entries.length > TIMELINE_LIMIT) this.entries.splice(0, this.entries.length - TIMELINE_LIMIT);
  }
}
