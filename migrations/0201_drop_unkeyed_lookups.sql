-- DESIGN §21: the plain indexes 0190 kept on the old keys (<table>_<columns>_idx), for
-- statements that found a row without its community. Every statement the app sends now
-- names it (`community_id = …`, or a join on it), so the (community_id, …) key serves
-- them, and these indexes cost an index write per row for nothing. The four that
-- cross-community statements still need stay (UNKEYED_LOOKUPS in
-- test/architecture/tenancy.test.ts says why): webhook_attempts (id) and
-- webhook_deliveries (id), refresh_tokens (token_hash), feed_activity (user_id).
-- The fill triggers of 0190 (plain Postgres) looked a row's parent up by these indexes;
-- every insert names community_id, so they no longer run (0202 drops them).
-- One DROP per index, each run by EXECUTE: Citus drops a distributed table's index on
-- its shards too, and sends the workers the statement's own text, which must be that one
-- command (a migration file's text holds many).
do $$
declare
	name text;
begin
	foreach name in array array[
		'activities_id_idx',
		'blocks_blocker_id_blocked_id_idx',
		'chatroom_cohorts_chatroom_id_cohort_id_idx',
		'chatroom_participants_chatroom_id_user_id_idx',
		'chatrooms_id_idx',
		'cohort_members_cohort_id_user_id_idx',
		'cohorts_id_idx',
		'comment_likes_comment_id_user_id_idx',
		'comment_tags_comment_id_user_id_idx',
		'comments_id_idx',
		'connection_requests_request_by_request_to_idx',
		'connections_user_id_connection_id_idx',
		'conversation_tags_conversation_id_user_id_idx',
		'conversations_id_idx',
		'events_id_idx',
		'fanout_jobs_id_idx',
		'feed_marks_post_id_idx',
		'import_job_chunks_job_id_seq_idx',
		'import_jobs_id_idx',
		'poll_ballots_conversation_id_user_id_idx',
		'poll_options_id_idx',
		'polls_conversation_id_idx',
		'post_likes_post_id_user_id_idx',
		'post_saves_post_id_user_id_idx',
		'post_tags_post_id_user_id_idx',
		'post_topics_post_id_topic_id_idx',
		'post_views_post_id_user_id_idx',
		'post_widgets_post_id_widget_id_idx',
		'posts_id_idx',
		'push_deliveries_id_idx',
		'topics_id_idx',
		'users_id_idx',
		'users_uuid_idx',
		'webhooks_id_idx',
		'widgets_id_idx'
	] loop
		execute format('drop index if exists %I', name);
	end loop;
end $$;
