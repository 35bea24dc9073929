import { sql } from 'kysely';
import zipcodes from 'zipcodes';
import { ensureAdvertiser } from '../store/advertisers';
import type { Db, Trx } from '../store/db';
import { dealInput } from './offer-fixture';
import {
  BROAD_WORDS,
  CATEGORY_NOUNS,
  COMMON_NOUNS,
  DESCRIPTION_SENTENCES,
  FINE_PRINTS,
  MODIFIERS,
  PEOPLE,
  PLACES,
  RARE_EVERY,
  SUFFIXES,
} from './search-words';

const US_ZIPS = Object.values(zipcodes.codes).filter((z) => z.country === 'US');

/** The leaf categories of the migration's tree (store/migrations/…0001): each seeded offer is filed under one. */
const LEAF_CATEGORIES = [2, 3, 4, 5, 11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34, 41, 42, 43, 44];
/** One offer in this many has no redemption location (nationwide everywhere), and one more only the country `US`. */
const NATIONWIDE_EVERY = 100;
/** Offers per INSERT … SELECT: each statement's trigger work (nationwide flag) stays bounded. */
const SQL_BATCH = 100_000;

/**
 * The offer's values its search rows carry (migration 0037), from offer row `o`: the trigger that
 * copies them is off while seeding, so the seed copies them by the trigger's rule.
 */
const COPIED = sql.raw(
  'on_sale, start_date, end_date, type, vouchers_expire_on, exclusive_until, exclusive_channels, category_ids, price_amount, published_at',
);
const offerValues = sql.raw(`(o.status in ('approved', 'resumed') and o.closed_at is null and coalesce(o.quantity_in_stock > 0, true)),
  o.start_date, o.end_date, o.type, o.vouchers_expire_on, o.exclusive_until, o.exclusive_channels, o.category_ids, o.price_amount, o.published_at`);

/** The words of the offers' text (bench/search-words.ts) as SQL arrays; a category's nouns at `cat * 11 + k + 1`. */
const WORDS = {
  nouns: sql.val(CATEGORY_NOUNS.flat()),
  modifiers: sql.val(MODIFIERS),
  suffixes: sql.val(SUFFIXES),
  broad: sql.val(BROAD_WORDS),
  people: sql.val(PEOPLE),
  places: sql.val(PLACES),
  fine: sql.val(FINE_PRINTS),
  sentences: sql.val(DESCRIPTION_SENTENCES),
};
const NOUNS_PER_CATEGORY = COMMON_NOUNS + 1;

/**
 * Approved offers seeded by set-based SQL (INSERT … SELECT generate_series): a million take about
 * a minute, against ten for row-by-row inserts. Offer `n` (counting on from the offers already
 * seeded by this function) is derived from `n` alone: a deal, coupon or gift card, one of the 20 leaf
 * categories, a price from $5 to $205, published within the last 180 days, redeemable at a real
 * US ZIP code (uniform over ZIP codes, so dense where people live), except one in 100 with no
 * location and one in 100 redeemable anywhere in the US (nationwide). Its text is composed of the
 * words of bench/search-words.ts (title, headline, description, advertiser name, fine print). The search rows
 * (offer_locations, offer_categories, with their copies of the offer's filters), the search document, its grid
 * cells and the vocabulary (migrations 0073, 0074) are written in the same statements, and `nationwide_countries`
 * is set as the trigger of migration 0011 would set it (no location: `{*}`; only the country: `{US}`).
 */
export async function seedCatalogue(db: Db, clientId: string, count: number): Promise<void> {
  const template = dealInput();
  const advertiserId = await ensureAdvertiser(db, clientId, template.advertiser.name);
  await sql`create table if not exists bench_zips (n int primary key, zip text, city text, state text, lat float8, lng float8)`.execute(db);
  if (Number((await sql<{ n: string }>`select count(*) as n from bench_zips`.execute(db)).rows[0].n) === 0)
    await sql`insert into bench_zips select row_number() over () - 1, * from unnest(
        ${US_ZIPS.map((z) => z.zip)}::text[], ${US_ZIPS.map((z) => z.city)}::text[], ${US_ZIPS.map((z) => z.state)}::text[],
        ${US_ZIPS.map((z) => z.latitude)}::float8[], ${US_ZIPS.map((z) => z.longitude)}::float8[])`.execute(db);
  const zips = US_ZIPS.length;
  const start = Number((await sql<{ n: string }>`select count(*) as n from offers where id like 'ofr_seed%'`.execute(db)).rows[0].n);
  for (let from = start; from < start + count; from += SQL_BATCH) {
    const to = Math.min(start + count, from + SQL_BATCH) - 1;
    await db.transaction().execute(async (trx) => {
      // No triggers for this transaction (the bench's database user is a superuser): the nationwide
      // trigger of migration 0011 would re-derive for every offer the flag the insert below already
      // sets by the same rule, half of the seed's time; the foreign keys hold by construction.
      await sql`set local session_replication_role = replica`.execute(trx);
      // Each offer's attributes from its number: a hash spreads them without correlating with one another.
      // The publication minute has a hash of its own: h's high bits (h / 4,000,000) gave 537 distinct
      // minutes, ~1,900 offers a minute at 1M, where 180 days of minutes give ~4.
      await sql`create temp table seed on commit drop as
        select n, 'ofr_seed' || lpad(n::text, 9, '0') as id,
          (array['deal','deal','deal','deal','deal','deal','deal','gift_card','gift_card','coupon'])[1 + (h % 10)] as type,
          ${sql.val(LEAF_CATEGORIES)}::int[] as cats, (h / 10) % 20 as cat,
          500 + (h / 200) % 20000 as price,
          now() - (abs(hashint4(-n)::int8) % (180 * 24 * 60)) * interval '1 minute' as published,
          case when n % ${NATIONWIDE_EVERY} = 0 then 'none' when n % ${NATIONWIDE_EVERY} = 1 then 'country' else 'zip' end as place,
          (h / 7) % ${zips} as zip,
          -- The text: the title's noun (its category's rare one in RARE_EVERY), a headline's and a description's other nouns.
          case when w % ${RARE_EVERY} = 0 then ${COMMON_NOUNS} else w % ${COMMON_NOUNS} end as noun,
          (w / ${RARE_EVERY}) % ${COMMON_NOUNS - 1} as head, (w / ${RARE_EVERY * 9}) % ${COMMON_NOUNS - 1} as other,
          v % ${MODIFIERS.length} as modifier, (v / 20) % ${SUFFIXES.length} as suffix, (v / 160) % ${BROAD_WORDS.length} as broad,
          (v / 1600) % ${PEOPLE.length} as person, (v / 25600) % ${PLACES.length} as place_word, (v / 307200) % ${FINE_PRINTS.length} as fine
        from (select n, abs(hashint4(n)::int8) as h, abs(hashint4(n # 1431655765)::int8) as w, abs(hashint4(n # 858993459)::int8) as v
          from generate_series(${from}::int, ${to}::int) n) g`.execute(trx);
      await writeSeedText(trx);
      await sql`insert into offers (id, client_id, advertiser_id, status, type, title, start_date, end_date, price_amount, currency_code,
          initial_quantity, quantity_in_stock, document, published_at, updated_at, created_at, submitted_at, nationwide_countries)
        select s.id, ${clientId}, ${advertiserId}, 'approved', s.type, t.title, ${template.start_date}, ${template.end_date},
          s.price, 'USD', 1000, 1000,
          ${JSON.stringify(template)}::jsonb || jsonb_build_object(
            'title', t.title, 'type', s.type, 'fine_print', t.fine,
            'creative', ${JSON.stringify(template.creative)}::jsonb || jsonb_build_object('headlines', jsonb_build_array(t.headline),
              'description', 'Enjoy ' || t.other || ' with ' || t.advertiser || '. A ' || t.broad || ' place, open every day. ' || t.more),
            'price', jsonb_build_object('currency_code', 'USD', 'amount', s.price),
            'value', jsonb_build_object('currency_code', 'USD', 'amount', s.price * 2),
            'advertiser', ${JSON.stringify(template.advertiser)}::jsonb || jsonb_build_object('name', t.advertiser,
              'categories', jsonb_build_array(jsonb_build_object('id', s.cats[1 + s.cat])),
              'redemption_locations', case s.place
                when 'none' then '[]'::jsonb
                when 'country' then jsonb_build_array(jsonb_build_object('country_code', 'US'))
                else jsonb_build_array(jsonb_build_object('city', z.city, 'state_code', z.state, 'postal_code', z.zip, 'country_code', 'US'))
              end)),
          s.published, s.published, s.published, s.published,
          case s.place when 'none' then '{*}' when 'country' then '{US}' else '{}' end::text[]
        from seed s join seed_text t on t.id = s.id join bench_zips z on z.n = s.zip`.execute(trx);
      await sql`insert into search_words (word) select distinct w from seed s join offers o on o.id = s.id, offer_search_vocabulary(o.document) w
        on conflict do nothing`.execute(trx);
      await sql`insert into offer_locations (offer_id, position, city, state_code, postal_code, country_code, latitude, longitude, ${COPIED})
        select s.id, 0, case when s.place = 'zip' then lower(z.city) end, case when s.place = 'zip' then z.state end,
          case when s.place = 'zip' then z.zip end, 'US',
          case when s.place = 'zip' then z.lat end, case when s.place = 'zip' then z.lng end, ${offerValues}
        from seed s join bench_zips z on z.n = s.zip join offers o on o.id = s.id where s.place <> 'none'`.execute(trx);
      // After the locations: the document's grid cells are theirs (migration 0074), as its trigger would write them.
      await sql`insert into offer_search_documents (offer_id, words, head, cells, ${COPIED})
        select o.id, offer_search_vector(o.document), offer_search_head(o.document), offer_search_cells(o.id), ${offerValues}
        from seed s join offers o on o.id = s.id`.execute(trx);
      await sql`insert into offer_categories (offer_id, category_id, ${COPIED})
        select s.id, s.cats[1 + s.cat], ${offerValues} from seed s join offers o on o.id = s.id`.execute(trx);
    });
  }
  await sql`VACUUM ANALYZE offers, offer_locations, offer_categories, offer_search_documents, search_words`.execute(db);
}

/**
 * The text of the offers in the temp table `seed` (seed_text: title, headline, advertiser, broad word, fine print, the
 * description's other noun and sentences), from the words of bench/search-words.ts. A headline's and the description's
 * nouns differ from the title's (the next ones round the category's ten).
 */
async function writeSeedText(trx: Trx): Promise<void> {
  await sql`create temp table seed_text on commit drop as select s.id,
        initcap(m.modifiers[1 + s.modifier]) || ' ' || initcap(m.nouns[1 + s.cat * ${NOUNS_PER_CATEGORY} + s.noun]) || ' ' || m.suffixes[1 + s.suffix] as title,
        initcap(m.nouns[1 + s.cat * ${NOUNS_PER_CATEGORY} + (s.noun + 1 + s.head) % ${COMMON_NOUNS}]) || ' included' as headline,
        m.people[1 + s.person] || '''s ' || m.places[1 + s.place_word] as advertiser,
        m.broad[1 + s.broad] as broad, m.fine[1 + s.fine] as fine,
        m.sentences[1 + s.n % 8] || ' ' || m.sentences[1 + (s.n % 8 + 1 + (s.n / 8) % 7) % 8] as more,
        m.nouns[1 + s.cat * ${NOUNS_PER_CATEGORY} + (s.noun + 1 + s.other) % ${COMMON_NOUNS}] as other
      from seed s, (select ${WORDS.nouns}::text[] as nouns, ${WORDS.modifiers}::text[] as modifiers, ${WORDS.suffixes}::text[] as suffixes,
        ${WORDS.broad}::text[] as broad, ${WORDS.people}::text[] as people, ${WORDS.places}::text[] as places, ${WORDS.fine}::text[] as fine,
        ${WORDS.sentences}::text[] as sentences) m`.execute(trx);
}
