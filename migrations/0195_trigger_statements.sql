-- Citus refuses to distribute a table with triggers (migrations/0199). The four that
-- wrote other tables are statements of the app now, in the statement that writes the
-- rows: connections/repo.ts insertConnections marks the followed users ever followed
-- (same lock in id order as 0065 took), and every writer of post_topics or
-- posts.is_deleted writes its topics' count deltas (topics/repo.ts topicDeltas).
drop trigger connections_followed on connections;
drop function connections_mark_followed();
drop trigger post_topics_added on post_topics;
drop trigger post_topics_removed on post_topics;
drop function topic_links_added();
drop function topic_links_removed();
drop trigger posts_deleted_count on posts;
drop function topic_posts_deleted();
