-- Member and mention search in index order (docs/search.md): a name prefix is a range
-- of the community's names in byte order (collation "C", which LIKE 'mar%' can bound
-- and ORDER BY can follow, so a page stops after its rows however many names match);
-- the CMs are few, kept apart. The typo fallback keeps the trigram GIN index of 0100.
create index users_name_prefix on users (community_id, (name_search collate "C"), id);
create index users_cms on users (community_id) where role <> 'member';
