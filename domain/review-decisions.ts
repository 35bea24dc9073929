/*
 * What the review team's decision leaves for the advertiser besides the new status: a rejection
 * with a reason is also a comment on the offer, in the reviewer's name, which the advertiser reads
 * in its comment thread (and may not change or delete).
 */

/** The comment a status change leaves on the offer, or undefined when it leaves none. */
export function reviewComment(c: { to: string; reason?: string; reviewer?: string }): { authorName: string; content: string } | undefined {
  if (c.to !== 'rejected' || !c.reason) return undefined;
  return { authorName: c.reviewer ?? 'Review team', content: `Rejected: ${c.reason}` };
}
