import { reviewComment } from '../../domain/review-decisions';

describe("the review team's decision as a comment", () => {
  it('leaves a comment for a rejection with a reason, in the reviewer’s name or the team’s', () => {
    expect(reviewComment({ to: 'rejected', reason: 'the photo is blurry', reviewer: 'Grace' })).toEqual({
      authorName: 'Grace',
      content: 'Rejected: the photo is blurry',
    });
    expect(reviewComment({ to: 'rejected', reason: 'no terms' })).toEqual({ authorName: 'Review team', content: 'Rejected: no terms' });
  });

  it('leaves none for a rejection without a reason or for any other move', () => {
    expect(reviewComment({ to: 'rejected' })).toBeUndefined();
    expect(reviewComment({ to: 'approved', reason: 'looks good' })).toBeUndefined();
    expect(reviewComment({ to: 'suspended', reason: 'paused' })).toBeUndefined();
  });
});
