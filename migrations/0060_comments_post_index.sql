-- Every comment by its post. `comments_post` holds only top-level comments (the list's
-- order), so deleting a post (or a community) cascaded into `comments` with a full scan
-- per post — a 15,000-post community took over 11 minutes to delete — and the import's
-- recount of replies per post had no index either.
create index comments_post_id on comments (post_id);
