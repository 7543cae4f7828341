-- Engagement support: who created a widget (may edit it), and the lookups the
-- like/comment/save/topic lists need.

alter table widgets add column created_by integer references users(id) on delete set null;

create index topics_community on topics (community_id, priority desc);
create index comment_likes_user on comment_likes (user_id);
create index post_views_user on post_views (user_id);
create index post_likes_post_created on post_likes (post_id, created_at desc);
create index comment_likes_comment_created on comment_likes (comment_id, created_at desc);

-- topics.post_count counts the live (not deleted) posts of a topic. Triggers keep it
-- exact whichever code path links, unlinks, deletes or restores a post, so no
-- application code updates it.
create function topic_links_count() returns trigger language plpgsql as $$
begin
	if tg_op = 'INSERT' then
		update topics set post_count = post_count + 1
		where id = new.topic_id and exists (select 1 from posts where id = new.post_id and not is_deleted);
		return new;
	end if;
	update topics set post_count = greatest(post_count - 1, 0)
	where id = old.topic_id and not coalesce((select is_deleted from posts where id = old.post_id), false);
	return old;
end $$;

create trigger post_topics_count after insert or delete on post_topics
for each row execute function topic_links_count();

create function topic_posts_deleted() returns trigger language plpgsql as $$
begin
	update topics set post_count = greatest(post_count + case when new.is_deleted then -1 else 1 end, 0)
	where id in (select topic_id from post_topics where post_id = new.id);
	return new;
end $$;

create trigger posts_deleted_count after update of is_deleted on posts
for each row when (old.is_deleted is distinct from new.is_deleted)
execute function topic_posts_deleted();
