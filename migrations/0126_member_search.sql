-- Member and mention search in index order (docs/search.md): a name prefix is a range
-- of the community's names in byte order (collation "C", which LIKE 'mar%' can walk and
-- ORDER BY can follow, so a page stops after its rows however many names match); a
-- word a typo away is the nearest names by pg_trgm's word distance, walked in the
-- GiST index (btree_gist puts the community first); the CMs are few, kept apart.
create extension if not exists btree_gist;
create index users_name_prefix on users (community_id, (name_search collate "C"), id);
create index users_name_near on users using gist (community_id, name_search gist_trgm_ops);
create index users_cms on users (community_id) where role <> 'member';
drop index if exists users_name_trgm;
