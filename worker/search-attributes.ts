import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { OFFER_SEARCH_ATTRIBUTES } from '../workflows/shared/search-attributes';

/** The keyword search attributes the workflows upsert, by name. */
export const KEYWORD_SEARCH_ATTRIBUTES: readonly string[] = OFFER_SEARCH_ATTRIBUTES.map((k) => k.name);

/**
 * Registers the workflows' search attributes on any cluster (idempotent), so operators can
 * filter with `temporal workflow list --query "OfferStatus='pending'"`.
 */
export async function registerSearchAttributes(cluster: string | Connection, namespace: string): Promise<void> {
  // An open connection is used as is (npm start has one already); an address gets its own.
  const connection = typeof cluster === 'string' ? await Connection.connect({ address: cluster }) : cluster;
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = KEYWORD_SEARCH_ATTRIBUTES.filter((name) => !customAttributes?.[name]);
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((name) => [name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  } finally {
    if (connection !== cluster) await connection.close();
  }
}
