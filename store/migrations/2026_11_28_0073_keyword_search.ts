import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Keyword search (issue 47, decision 0079, docs/distribution-search-design.md "Keyword search"):
 * each offer's words as a search document, in the search read model beside its search rows.
 *
 * - `offer_search` and `offer_search_simple`: text search configurations that drop accents
 *   (`unaccent`) before English stemming, or before plain lower-casing (the vocabulary below).
 * - `offer_search_documents`: one row per offer, its words weighted by field (A title, B headlines,
 *   C advertiser name and category names, D description and fine print), and apart the title's and
 *   headlines' (`head`: a match there is read first), each under a GIN index, and
 *   copies of what the search filters on (migration 0037's), so a keyword search filters and ranks
 *   on this narrow row and reads no offer row before its page.
 * - `search_words`: every word (4 to 40 letters, accents dropped) any offer has used, under a
 *   trigram GiST index: a word typed with a typo is looked up among its nearest words here
 *   (pg_trgm's `<->`), and the edit distance decides (domain/keyword-search.ts); a prefix is
 *   completed to its words (`like`, on the primary key in byte order). Never pruned: a
 *   word of an offer that left only widens what a typo is corrected to.
 *
 * Kept by triggers inside the offer's own write (as the search rows are, migration 0037): a new
 * offer or a change of its document writes its search document and adds its words; a change of a
 * copied value is copied. An order that takes stock writes it only when the offer sells out or
 * comes back, by the same WHEN as the search rows'.
 */

/** The search rows' copies of their offer's values (migration 0037), and those values on an offer row `o`. */
const COPIED = [
  'on_sale',
  'start_date',
  'end_date',
  'type',
  'vouchers_expire_on',
  'exclusive_until',
  'exclusive_channels',
  'category_ids',
  'price_amount',
  'published_at',
];
const offerValues = (o: string) =>
  [
    `(${o}.status in ('approved', 'resumed') and ${o}.closed_at is null and coalesce(${o}.quantity_in_stock > 0, true))`,
    ...COPIED.slice(1).map((c) => `${o}.${c}`),
  ].join(', ');

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const extension of ['unaccent', 'pg_trgm']) await sql`create extension if not exists ${sql.raw(extension)}`.execute(db);
  await sql`create text search configuration offer_search (copy = english)`.execute(db);
  await sql`alter text search configuration offer_search
    alter mapping for hword, hword_part, word with unaccent, english_stem`.execute(db);
  await sql`create text search configuration offer_search_simple (copy = simple)`.execute(db);
  await sql`alter text search configuration offer_search_simple
    alter mapping for asciiword, asciihword, hword_asciipart, hword, hword_part, word with unaccent, simple`.execute(db);

  // The document's text by field; category names from the tree (it changes only with a migration).
  await sql`create function offer_search_categories(doc jsonb) returns text language sql stable as $$
    select coalesce(string_agg(c.name, ' '), '') from categories c
    where c.id in (select (x->>'id')::int from jsonb_array_elements(coalesce(doc->'advertiser'->'categories', '[]')) x)
  $$`.execute(db);
  await sql`create function offer_search_head(doc jsonb) returns tsvector language sql stable as $$
    select setweight(to_tsvector('offer_search', coalesce(doc->>'title', '')), 'A')
      || setweight(to_tsvector('offer_search', coalesce((select string_agg(h, ' ')
           from jsonb_array_elements_text(coalesce(doc->'creative'->'headlines', '[]')) h), '')), 'B')
  $$`.execute(db);
  await sql`create function offer_search_vector(doc jsonb) returns tsvector language sql stable as $$
    select offer_search_head(doc)
      || setweight(to_tsvector('offer_search', coalesce(doc->'advertiser'->>'name', '') || ' ' || offer_search_categories(doc)), 'C')
      || setweight(to_tsvector('offer_search', coalesce(doc->'creative'->>'description', '') || ' ' || coalesce(doc->>'fine_print', '')), 'D')
  $$`.execute(db);
  await sql`create function offer_search_vocabulary(doc jsonb) returns setof text language sql stable as $$
    select w from unnest(tsvector_to_array(to_tsvector('offer_search_simple', concat_ws(' ', doc->>'title',
      (select string_agg(h, ' ') from jsonb_array_elements_text(coalesce(doc->'creative'->'headlines', '[]')) h),
      doc->'advertiser'->>'name', offer_search_categories(doc), doc->'creative'->>'description', doc->>'fine_print')))) w
    where length(w) between 4 and 40
  $$`.execute(db);

  await sql`create table offer_search_documents (
    offer_id text primary key references offers (id) on delete cascade,
    words tsvector not null,
    head tsvector not null,
    on_sale boolean not null,
    start_date date, end_date date, type text, vouchers_expire_on text, exclusive_until text,
    exclusive_channels jsonb, category_ids int[], price_amount bigint, published_at timestamptz
  )`.execute(db);
  // Byte order, so `like 'abc%'` (a prefix's completions) is a range of its primary key.
  await sql`create table search_words (word text collate "C" primary key)`.execute(db);

  // A new offer or a changed document: its search document (with the copies) and its words.
  await sql`create function offer_search_document_write() returns trigger language plpgsql as $$
    begin
      insert into offer_search_documents (offer_id, words, head, ${sql.raw(COPIED.join(', '))})
        select new.id, offer_search_vector(new.document), offer_search_head(new.document), ${sql.raw(offerValues('new'))}
      on conflict (offer_id) do update set words = excluded.words, head = excluded.head,
        ${sql.raw(COPIED.map((c) => `${c} = excluded.${c}`).join(', '))};
      insert into search_words (word) select w from offer_search_vocabulary(new.document) w order by w on conflict do nothing;
      return null;
    end $$`.execute(db);
  await sql`create trigger offers_search_document_insert after insert on offers
    for each row execute function offer_search_document_write()`.execute(db);
  await sql`create trigger offers_search_document_update after update on offers
    for each row when (old.document is distinct from new.document) execute function offer_search_document_write()`.execute(db);
  // A change of a copied value (status, stock to or from zero, dates…) without a new document.
  await sql`create function offer_copy_to_search_document() returns trigger language plpgsql as $$
    begin
      update offer_search_documents d set (${sql.raw(COPIED.join(', '))}) = (select ${sql.raw(offerValues('new'))}) where d.offer_id = new.id;
      return null;
    end $$`.execute(db);
  await sql`create trigger offers_copy_to_search_document after update on offers for each row
    when ((${sql.raw(offerValues('old'))}) is distinct from (${sql.raw(offerValues('new'))}) and old.document is not distinct from new.document)
    execute function offer_copy_to_search_document()`.execute(db);

  // Backfill, then the indexes (built once rather than kept row by row).
  await sql`insert into offer_search_documents (offer_id, words, head, ${sql.raw(COPIED.join(', '))})
    select o.id, offer_search_vector(o.document), offer_search_head(o.document), ${sql.raw(offerValues('o'))} from offers o`.execute(db);
  await sql`insert into search_words (word) select distinct w from offers o, offer_search_vocabulary(o.document) w`.execute(db);
  await sql`create index offer_search_documents_words on offer_search_documents using gin (words)`.execute(db);
  await sql`create index offer_search_documents_head on offer_search_documents using gin (head)`.execute(db);
  await sql`create index search_words_trigrams on search_words using gist (word gist_trgm_ops)`.execute(db);
  await sql`analyze offer_search_documents`.execute(db);
  await sql`analyze search_words`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger offers_copy_to_search_document on offers`.execute(db);
  await sql`drop trigger offers_search_document_update on offers`.execute(db);
  await sql`drop trigger offers_search_document_insert on offers`.execute(db);
  await sql`drop function offer_copy_to_search_document()`.execute(db);
  await sql`drop function offer_search_document_write()`.execute(db);
  await sql`drop table search_words`.execute(db);
  await sql`drop table offer_search_documents`.execute(db);
  await sql`drop function offer_search_vocabulary(jsonb)`.execute(db);
  await sql`drop function offer_search_vector(jsonb)`.execute(db);
  await sql`drop function offer_search_head(jsonb)`.execute(db);
  await sql`drop function offer_search_categories(jsonb)`.execute(db);
  await sql`drop text search configuration offer_search_simple`.execute(db);
  await sql`drop text search configuration offer_search`.execute(db);
}
