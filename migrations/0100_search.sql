-- Search (DESIGN section 18, docs/search.md): Postgres full-text search for posts,
-- chatroom titles and conversations, trigram search for member names. Both extensions
-- ship with Debian's Postgres (contrib) and are trusted (a database owner may create them).
create extension if not exists unaccent;
create extension if not exists pg_trgm;

-- unaccent() is only stable (its dictionary is looked up by name at run time); generated
-- columns and index expressions need an immutable function, so the dictionary is named.
create or replace function plaza_unaccent(value text) returns text
	language sql immutable parallel safe strict
	as $$ select public.unaccent('public.unaccent'::regdictionary, value) $$;

-- A tag in a text (<<Display Name|route://member/<uuid>>>) is searched by its display
-- name only: the route and the uuid would match every tagged text.
create or replace function plaza_search_text(value text) returns text
	language sql immutable parallel safe
	as $$ select plaza_unaccent(regexp_replace(coalesce(value, ''), '<<([^|<>]*)\|[^<>]*>>', '\1', 'g')) $$;

-- A post's document: heading and topic names weigh A, the text B (ts_rank_cd uses them).
create or replace function post_search_vector(heading text, body text, topic_names text)
	returns tsvector
	language sql immutable parallel safe
	as $$ select setweight(to_tsvector('simple'::regconfig, plaza_search_text(heading)), 'A')
		|| setweight(to_tsvector('simple'::regconfig, plaza_search_text(topic_names)), 'A')
		|| setweight(to_tsvector('simple'::regconfig, plaza_search_text(body)), 'B') $$;

-- What a member types into a search-as-you-type box: every word, the last one (and
-- every other) as a prefix. Null when nothing searchable is left.
create or replace function plaza_prefix_query(value text) returns tsquery
	language sql immutable parallel safe
	as $$ select to_tsquery('simple'::regconfig, string_agg(quote_literal(w) || ':*', ' & '))
		from regexp_split_to_table(lower(plaza_unaccent(coalesce(value, ''))), '[^[:alnum:]]+') as w
		where w <> '' $$;

-- The names of a post's topics, written by the statement that links them (insert,
-- edit, import); the search vector follows from the row itself.
alter table posts add column topic_names text not null default '';
update posts p set topic_names = x.names
from (select pt.post_id, string_agg(t.name, ' ' order by t.id) as names
	from post_topics pt join topics t on t.id = pt.topic_id group by pt.post_id) x
where x.post_id = p.id;
alter table posts add column search tsvector
	generated always as (post_search_vector(heading, text, topic_names)) stored;
create index posts_search on posts using gin (search);

-- Rooms by title and header; messages by their text.
alter table chatrooms add column search tsvector
	generated always as (to_tsvector('simple'::regconfig,
		plaza_search_text(title) || ' ' || plaza_search_text(header))) stored;
create index chatrooms_search on chatrooms using gin (search);
alter table conversations add column search tsvector
	generated always as (to_tsvector('simple'::regconfig, plaza_search_text(text))) stored;
create index conversations_search on conversations using gin (search);

-- Member names, unaccented and lower-cased once when written (a search then rechecks and
-- ranks its candidates without unaccenting each): prefix (LIKE 'ab%') and typo-tolerant
-- (word similarity, `<%`) lookups both use the trigram index.
alter table users add column name_search text generated always as (lower(plaza_unaccent(name))) stored;
create index users_name_trgm on users using gin (name_search gin_trgm_ops);
