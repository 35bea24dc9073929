import type { ActivityDeps } from './deps';

/**
 * Every activity, as plain functions closed over their dependencies. Workflows import only the
 * type (`proxyActivities<Activities>`), never this module's code.
 */
export function createActivities(_deps: ActivityDeps) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
