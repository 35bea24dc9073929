import type { Connection } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { OFFER_SEARCH_ATTRIBUTES } from '../workflows/shared/search-attributes';

/** The keyword search attributes the workflows upsert, by name. */
export const KEYWORD_SEARCH_ATTRIBUTES: readonly string[] = OFFER_SEARCH_ATTRIBUTES.map((k) => k.name);

/** The two calls of Temporal's operator service used here (a test hands in a fake). */
export type SearchAttributeOperator = Pick<Connection['operatorService'], 'listSearchAttributes' | 'addSearchAttributes'>;

/**
 * What a start did: nothing missing; added some; or the cluster refused to say or to add (Temporal
 * Cloud answers PermissionDenied or Unimplemented), with a warning that says what to run.
 */
export type SearchAttributeOutcome =
  { status: 'present' } | { status: 'added'; added: string[] } | { status: 'refused'; missing: string[]; warning: string };

// gRPC codes of a cluster that does not let a client manage search attributes (Temporal Cloud).
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;

function isRefusal(err: unknown): boolean {
  return isGrpcServiceError(err) && (err.code === PERMISSION_DENIED || err.code === UNIMPLEMENTED);
}

/** The warning of a refused registration: each attribute and the commands that add them. */
export function missingSearchAttributesWarning(namespace: string, missing: readonly string[], checked: boolean): string {
  const tcld = missing.map((name) => `--search-attribute "${name}=Keyword"`).join(' ');
  const cli = missing.map((name) => `--name ${name} --type Keyword`).join(' ');
  return (
    `temporal: the cluster did not let this service ${checked ? 'add' : 'list'} search attributes in namespace ${namespace}; ` +
    `${checked ? 'missing' : 'make sure these exist'}: ${missing.join(', ')} (Keyword). The workflows that set them fail their tasks until they exist. ` +
    `Temporal Cloud: tcld namespace search-attributes add --namespace ${namespace} ${tcld} ; ` +
    `a self-hosted cluster: temporal operator search-attribute create --namespace ${namespace} ${cli}`
  );
}

/**
 * Registers the workflows' search attributes (idempotent), so operators can filter with
 * `temporal workflow list --query "OfferStatus='pending'"`. A cluster that refuses (Temporal Cloud
 * manages them through its own control plane) does not stop the start: the outcome's warning names
 * what to add, and how.
 */
export async function registerSearchAttributes(operator: SearchAttributeOperator, namespace: string): Promise<SearchAttributeOutcome> {
  let missing: string[];
  try {
    const { customAttributes } = await operator.listSearchAttributes({ namespace });
    missing = KEYWORD_SEARCH_ATTRIBUTES.filter((name) => !customAttributes?.[name]);
  } catch (err) {
    if (!isRefusal(err)) throw err;
    const all = [...KEYWORD_SEARCH_ATTRIBUTES];
    return { status: 'refused', missing: all, warning: missingSearchAttributesWarning(namespace, all, false) };
  }
  if (missing.length === 0) return { status: 'present' };
  try {
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((name) => [name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return { status: 'refused', missing, warning: missingSearchAttributesWarning(namespace, missing, true) };
  }
  return { status: 'added', added: missing };
}
