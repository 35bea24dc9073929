import { temporal } from '@temporalio/proto';
import { KEYWORD_SEARCH_ATTRIBUTES, registerSearchAttributes, type SearchAttributeOperator } from '../../worker/search-attributes';

/*
 * The start-up's search attributes against a fake operator service: added where the cluster lets
 * the service add them; where it refuses (Temporal Cloud: PermissionDenied or Unimplemented), the
 * start goes on with a warning naming each missing attribute and the commands that add it.
 */

const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

function fakeOperator(opts: { present?: string[]; list?: Error; add?: Error }) {
  const added: Record<string, unknown>[] = [];
  const operator = {
    listSearchAttributes: async () => {
      if (opts.list) throw opts.list;
      return { customAttributes: Object.fromEntries((opts.present ?? []).map((n) => [n, KEYWORD])) };
    },
    addSearchAttributes: async (req: { searchAttributes?: Record<string, unknown> | null }) => {
      if (opts.add) throw opts.add;
      added.push(req.searchAttributes ?? {});
      return {};
    },
  } as unknown as SearchAttributeOperator;
  return { operator, added };
}

describe('registering search attributes', () => {
  it('adds the missing ones only, as keywords', async () => {
    const { operator, added } = fakeOperator({ present: ['OfferStatus'] });
    await expect(registerSearchAttributes(operator, 'ns')).resolves.toEqual({ status: 'added', added: ['AdvertiserName', 'OfferType'] });
    expect(added).toEqual([{ AdvertiserName: KEYWORD, OfferType: KEYWORD }]);
  });

  it('adds nothing when all are there', async () => {
    const { operator, added } = fakeOperator({ present: [...KEYWORD_SEARCH_ATTRIBUTES] });
    await expect(registerSearchAttributes(operator, 'ns')).resolves.toEqual({ status: 'present' });
    expect(added).toEqual([]);
  });

  it.each([
    ['PermissionDenied', 7],
    ['Unimplemented', 12],
  ])('a cluster answering %s to the add: the start goes on, and the warning names each attribute and both commands', async (_, code) => {
    const { operator } = fakeOperator({ present: ['OfferStatus'], add: grpcError(code, 'Request unauthorized.') });
    const outcome = await registerSearchAttributes(operator, 'offers.a2b3c');
    expect(outcome).toMatchObject({ status: 'refused', missing: ['AdvertiserName', 'OfferType'] });
    const warning = outcome.status === 'refused' ? outcome.warning : '';
    expect(warning).toContain('missing: AdvertiserName, OfferType');
    expect(warning).toContain(
      'tcld namespace search-attributes add --namespace offers.a2b3c --search-attribute "AdvertiserName=Keyword" --search-attribute "OfferType=Keyword"',
    );
    expect(warning).toContain(
      'temporal operator search-attribute create --namespace offers.a2b3c --name AdvertiserName --type Keyword --name OfferType --type Keyword',
    );
    expect(warning).not.toContain('OfferStatus');
  });

  it('a cluster that refuses even the list: the warning names every attribute to check', async () => {
    const { operator } = fakeOperator({ list: grpcError(7, 'Request unauthorized.') });
    const outcome = await registerSearchAttributes(operator, 'ns');
    expect(outcome).toMatchObject({ status: 'refused', missing: [...KEYWORD_SEARCH_ATTRIBUTES] });
    expect(outcome.status === 'refused' && outcome.warning).toContain('make sure these exist: OfferStatus, AdvertiserName, OfferType');
  });

  it('any other failure (the cluster unreachable) still stops the start', async () => {
    const { operator } = fakeOperator({ add: grpcError(14, 'unavailable') });
    await expect(registerSearchAttributes(operator, 'ns')).rejects.toThrow('14 unavailable');
  });
});
