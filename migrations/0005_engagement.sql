-- Engagement support: who created a widget (may edit it), and the lookups the
-- like/comment/save/topic lists need.

alter table widgets add column created_by integer references users(id) on delete set null;

create index topics_community on topics (community_id, priority desc);
create index comment_likes_user on comment_likes (user_id);
create index post_views_user on post_views (user_id);
create index post_likes_post_created on post_likes (post_id, created_at desc);
create index comment_likes_comment_created on comment_likes (comment_id, created_at desc);
