/** The environments a deployment can serve (spec §1.3); each has its own keys. */
export const SERVICE_ENVIRONMENTS = ['sandbox', 'production'] as const;
export type ServiceEnvironment = (typeof SERVICE_ENVIRONMENTS)[number];

/** The two interfaces (spec §1.2): advertisers submit, publishers distribute. A key opens one. */
export const API_INTERFACES = ['submission', 'distribution'] as const;
export type ApiInterface = (typeof API_INTERFACES)[number];

/** Where each interface is mounted: the one place its path is written (routes, links in events, the admin CLI). */
export const INTERFACE_PREFIX: Readonly<Record<ApiInterface, string>> = {
  submission: '/submission/beta',
  distribution: '/distribution/beta',
};
