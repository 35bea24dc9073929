/**
 * Workflow ids are business keys, built only here: the API, the admin CLI and the tests find a
 * workflow from the resource's id, and nobody stores run ids.
 */
export const offerReviewWorkflowId = (offerId: string) => `offer-review:${offerId}`;
