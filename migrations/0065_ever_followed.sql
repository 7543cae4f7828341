-- Whether anyone has ever followed the user (a connections row naming them as
-- `connection_id`), set by the insert of that row and never cleared. A new post of an
-- author nobody has followed needs no connection fan-out job (no follower's feed can
-- hold it), so the statement that writes new posts skips those jobs
-- (timelines/connection-repo.ts newPostJobsCtes) — two row writes and the worker's
-- claim per post. It reads this flag under a share lock: a follow committed while the
-- post is written either updated the flag first (the post then waits, sees the flag
-- set and writes its job) or waits for the post's commit (and the follow's feed merge
-- then reads the post). Both sides lock users rows in id order, so they never wait on
-- each other in a cycle.
alter table users add column ever_followed boolean not null default false;

update users set ever_followed = true where id in (select connection_id from connections);

create function connections_mark_followed() returns trigger language plpgsql as $$
begin
	update users u set ever_followed = true
	from (select id from users where id in (select connection_id from added) and not ever_followed
		order by id for no key update) f
	where u.id = f.id;
	return null;
end $$;

create trigger connections_followed after insert on connections
referencing new table as added for each statement execute function connections_mark_followed();
