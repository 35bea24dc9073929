import { createStaff, listStaff, newSignIn, revokeStaff } from '../../../services/redemption-staff';
import { IdParam, IdParams } from '../../../schemas/common';
import { listReply, okReply } from '../../../schemas/envelope';
import { PageQuery } from '../../../schemas/pagination';
import { RedemptionStaffCreateBody, RedemptionStaffList, RedemptionStaffResponse } from '../../../schemas/redemption-staff';
import { siteBaseUrl } from '../../urls';
import { operations, type RoutePlugin } from '../operation';

const op = operations('RedemptionStaff');
const ListQuery = PageQuery.extend({ advertiser_id: IdParam.optional() });

/**
 * The advertiser's counter staff (docs/merchant-counter.md), on the submission interface: create
 * (with a one-time sign-in, shown once), list, a new sign-in for another device, revoke.
 */
export const redemptionStaffRoutes: RoutePlugin = async (app, { deps }) => {
  app.post(
    '/redemption_staff',
    {
      // The one-time sign-in is shown once: a retry with the same Idempotency-Key is 409, never the code again.
      config: { answersSecret: true },
      ...op('createRedemptionStaff', 'Create a counter staff member', {
        body: RedemptionStaffCreateBody,
        response: { 200: RedemptionStaffResponse },
      }),
    },
    async (request) => {
      const { staff, signIn } = await createStaff(deps, request.client.id, request.body.redemption_staff, siteBaseUrl(request));
      return okReply('redemption_staff', { ...staff, sign_in: signIn });
    },
  );

  app.get(
    '/redemption_staff',
    op('listRedemptionStaff', 'List counter staff', { querystring: ListQuery, response: { 200: RedemptionStaffList } }),
    async (request) =>
      listReply('redemption_staff', await listStaff(deps, request.client.id, request.query, request.query.advertiser_id), request.query),
  );

  app.post(
    '/redemption_staff/:id/sign_in',
    {
      config: { answersSecret: true },
      ...op('newRedemptionStaffSignIn', 'Issue a new one-time sign-in', { params: IdParams, response: { 200: RedemptionStaffResponse } }),
    },
    async (request) => {
      const { staff, signIn } = await newSignIn(deps, request.client.id, request.params.id, siteBaseUrl(request));
      return okReply('redemption_staff', { ...staff, sign_in: signIn });
    },
  );

  app.delete(
    '/redemption_staff/:id',
    op('revokeRedemptionStaff', 'Revoke a counter staff member', { params: IdParams, response: { 200: RedemptionStaffResponse } }),
    async (request) => okReply('redemption_staff', await revokeStaff(deps, request.client.id, request.params.id)),
  );
};
