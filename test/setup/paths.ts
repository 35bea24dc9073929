/*
 * The interfaces' documented base paths, written out (not imported from api/urls.ts): they are
 * the contract with integrators, so a change to the routes' prefixes must fail the tests.
 */
export const SUB = '/submission/beta';
export const DIST = '/distribution/beta';
export const DEV = '/developer/beta';
