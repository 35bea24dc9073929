import { z } from 'zod';
import type { CommentRow } from '../store/database';
import { Attachment, AttachmentRef } from './attachment';
import { IdParam, iso } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';

/** Who wrote a comment: the advertiser (the submission client) or the review team (operators, rejections). */
export const CommentAuthorRole = z.enum(['advertiser', 'review_team']);

const commentFields = {
  author_name: z.string().trim().min(1).max(200),
  content: z.string().trim().min(1).max(10_000),
  /** The client's own attachments, by id (uploaded first with POST /attachments). */
  attachments: z.array(AttachmentRef).max(20),
};

/** POST body: `{comment:{author_name, content, attachments?}}`. */
export const CommentInput = z.object({ ...commentFields, attachments: commentFields.attachments.default([]) });
export type CommentInput = z.infer<typeof CommentInput>;

/** PUT body: any of the fields; `attachments` replaces the whole list. */
export const CommentUpdate = z
  .object({
    author_name: commentFields.author_name.optional(),
    content: commentFields.content.optional(),
    attachments: commentFields.attachments.optional(),
  })
  .refine((u) => Object.values(u).some((v) => v !== undefined), { message: 'nothing to change: send author_name, content or attachments' });
export type CommentUpdate = z.infer<typeof CommentUpdate>;

export const CommentCreateBody = wrappedBody('comment', CommentInput).meta({
  examples: [{ comment: { author_name: 'Maria Rossi', content: 'The new photos are attached.' } }],
});
export const CommentUpdateBody = wrappedBody('comment', CommentUpdate);

/**
 * A comment of an offer's thread (spec §2.8). `author_role` and `updated_at` are additions: the
 * role says whether the advertiser may change it (review-team comments are read-only).
 */
export const Comment = z.object({
  id: z.string(),
  author_name: z.string(),
  content: z.string(),
  created_at: z.string(),
  attachments: z.array(Attachment),
  author_role: CommentAuthorRole,
  updated_at: z.string(),
});
export type Comment = z.infer<typeof Comment>;

export const CommentResponse = okEnvelope('comment', Comment);
export const CommentList = listEnvelope('comments', Comment);

export const CommentParams = z.object({ id: IdParam, comment_id: IdParam });

/**
 * A comment as clients see it, its attachment ids resolved through `attachments` (the offer
 * owner's live attachments as views: a deleted one drops out of the list).
 */
export function toComment(row: CommentRow, attachments: ReadonlyMap<string, Attachment>): Comment {
  return {
    id: row.id,
    author_name: row.author_name,
    content: row.content,
    created_at: iso(row.created_at),
    attachments: row.attachment_ids.flatMap((id) => attachments.get(id) ?? []),
    author_role: row.author_role,
    updated_at: iso(row.updated_at),
  };
}
