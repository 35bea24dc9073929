import { refuse } from './failures';

/** One developer account per email address: its keys were shown once, at sign-up, and are not shown again. */
export function emailSignedUpBefore(): never {
  return refuse('duplicate', 'a developer account with this email address exists already; its keys were shown once, at sign-up', {
    field: 'email',
  });
}
