-- Member and mention search by name prefix in index order (docs/search.md): the
-- community's names, unaccented and lower-cased (users.name_search, migration 0100), in
-- byte order ("C": a prefix is one range, walked in order and stopped at the page). The
-- trigram index stays for the typo fallback.
create index users_name_prefix on users (community_id, (name_search collate "C"), id)
	where not is_deleted;
-- The community's CMs, listed with the searcher's connections ahead of everyone else.
create index users_cms on users (community_id) where role = 'cm' and not is_deleted;
