-- DESIGN §21: internal serials are bigint. Users and cohorts were 32-bit serials, and
-- one users sequence numbers every member of every community of an installation, so
-- 2^31 would be its ceiling. Every column holding a user id or a cohort id follows
-- (foreign keys compare equal types, and a bigint id must fit where it is copied;
-- a fan-out job's cursor is the last follower it reached).
-- Ids handed to clients do not change form: a user id stays a JSON number (safe in
-- JavaScript to 2^53), a cohort id too.
--
-- Each table is rewritten once (one ALTER per table); on a large installation run it in
-- a quiet hour: it holds each table's lock while that table is rewritten. On Citus the
-- ALTERs reach every shard (none of these columns is the distribution column).
-- communities.id stays integer: one row per project, and it is the distribution column.

-- Citus refuses to alter a distributed sequence, or a column's type while a sequence
-- feeds it, or an OWNED BY naming a distributed table: the serials' sequences are
-- replaced by bigint ones (made first, while no table is locked; one connection per
-- worker, as in 0199), with the same next values and names. One DO block: Citus
-- cannot send some of these commands on from a string of several.
do $$ begin
	set local citus.multi_shard_modify_mode to 'sequential';
	create sequence users_id as bigint;
	create sequence cohorts_id as bigint;
	perform setval('users_id', last_value, is_called) from users_id_seq;
	perform setval('cohorts_id', last_value, is_called) from cohorts_id_seq;
	alter table users alter column id drop default;
	alter table cohorts alter column id drop default;
	drop sequence users_id_seq;
	drop sequence cohorts_id_seq;

	alter table users alter column id type bigint, alter column departed_by type bigint;
	alter table cohorts alter column id type bigint;

	alter table activities alter column recipient_id type bigint, alter column actor_ids type bigint[];
	alter table blocks alter column blocker_id type bigint, alter column blocked_id type bigint;
	alter table chat_notices alter column author_id type bigint;
	alter table chatroom_cohorts alter column cohort_id type bigint;
	alter table chatroom_invites alter column user_id type bigint, alter column invited_by type bigint;
	alter table chatroom_participants alter column user_id type bigint;
	alter table chatrooms alter column created_by type bigint;
	alter table cohort_members alter column cohort_id type bigint, alter column user_id type bigint;
	alter table comment_likes alter column user_id type bigint;
	alter table comment_tags alter column user_id type bigint;
	alter table comments alter column user_id type bigint, alter column deleted_by type bigint;
	alter table connection_requests alter column request_by type bigint, alter column request_to type bigint;
	alter table connections alter column user_id type bigint, alter column connection_id type bigint;
	alter table conversation_reactions alter column user_id type bigint;
	alter table conversation_tags alter column user_id type bigint;
	alter table conversations alter column user_id type bigint, alter column deleted_by type bigint;
	alter table devices alter column user_id type bigint;
	alter table dm_rooms alter column low_user_id type bigint, alter column high_user_id type bigint,
		alter column created_by type bigint, alter column requested_by type bigint;
	alter table fanout_jobs alter column author_id type bigint, alter column cursor type bigint;
	alter table feed_activity alter column user_id type bigint;
	alter table feed_poll_ballots alter column user_id type bigint;
	alter table feed_poll_options alter column member_id type bigint;
	alter table feed_polls alter column creator_id type bigint;
	alter table hidden_posts alter column user_id type bigint;
	alter table import_jobs alter column created_by type bigint;
	alter table member_profiles alter column user_id type bigint;
	alter table member_right_denials alter column user_id type bigint, alter column denied_by type bigint;
	alter table owner_phones alter column user_id type bigint;
	alter table poll_ballots alter column user_id type bigint;
	alter table poll_options alter column member_id type bigint;
	alter table polls alter column creator_id type bigint;
	alter table post_likes alter column user_id type bigint;
	alter table post_saves alter column user_id type bigint;
	alter table post_tags alter column user_id type bigint;
	alter table post_views alter column user_id type bigint;
	alter table posts alter column user_id type bigint, alter column deleted_by type bigint;
	alter table push_deliveries alter column recipient_id type bigint, alter column actor_id type bigint;
	alter table refresh_tokens alter column user_id type bigint;
	alter table reports alter column reporter_user_id type bigint, alter column accused_user_id type bigint,
		alter column closed_by type bigint;
	alter table user_topics alter column user_id type bigint;
	alter table widgets alter column created_by type bigint;

	alter table users alter column id set default nextval('users_id');
	alter table cohorts alter column id set default nextval('cohorts_id');
	alter sequence users_id rename to users_id_seq;
	alter sequence cohorts_id rename to cohorts_id_seq;
end $$;
