-- DESIGN §21: the plain indexes 0190 kept on the old keys (<table>_<columns>_idx), for
-- statements that found a row without its community. Every statement the app sends now
-- names it (`community_id = …`, or a join on it), so the (community_id, …) key serves
-- them, and these indexes cost an index write per row for nothing. The four that
-- cross-community statements still need stay (UNKEYED_LOOKUPS in
-- test/architecture/tenancy.test.ts says why): webhook_attempts (id) and
-- webhook_deliveries (id), refresh_tokens (token_hash), feed_activity (user_id).
-- The fill triggers of 0190 (plain Postgres) looked a row's parent up by these indexes;
-- every insert names community_id, so they no longer run.
-- One index per statement: Citus drops a distributed table's index on its shards too,
-- but one object per DROP.
drop index if exists activities_id_idx;
drop index if exists blocks_blocker_id_blocked_id_idx;
drop index if exists chatroom_cohorts_chatroom_id_cohort_id_idx;
drop index if exists chatroom_participants_chatroom_id_user_id_idx;
drop index if exists chatrooms_id_idx;
drop index if exists cohort_members_cohort_id_user_id_idx;
drop index if exists cohorts_id_idx;
drop index if exists comment_likes_comment_id_user_id_idx;
drop index if exists comment_tags_comment_id_user_id_idx;
drop index if exists comments_id_idx;
drop index if exists connection_requests_request_by_request_to_idx;
drop index if exists connections_user_id_connection_id_idx;
drop index if exists conversation_tags_conversation_id_user_id_idx;
drop index if exists conversations_id_idx;
drop index if exists events_id_idx;
drop index if exists fanout_jobs_id_idx;
drop index if exists feed_marks_post_id_idx;
drop index if exists import_job_chunks_job_id_seq_idx;
drop index if exists import_jobs_id_idx;
drop index if exists poll_ballots_conversation_id_user_id_idx;
drop index if exists poll_options_id_idx;
drop index if exists polls_conversation_id_idx;
drop index if exists post_likes_post_id_user_id_idx;
drop index if exists post_saves_post_id_user_id_idx;
drop index if exists post_tags_post_id_user_id_idx;
drop index if exists post_topics_post_id_topic_id_idx;
drop index if exists post_views_post_id_user_id_idx;
drop index if exists post_widgets_post_id_widget_id_idx;
drop index if exists posts_id_idx;
drop index if exists push_deliveries_id_idx;
drop index if exists topics_id_idx;
drop index if exists users_id_idx;
drop index if exists users_uuid_idx;
drop index if exists webhooks_id_idx;
drop index if exists widgets_id_idx;
