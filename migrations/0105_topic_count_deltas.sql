-- topics.post_count off the hot rows (issue 40). The triggers of 0005/0030 updated the
-- topic's row for every link, unlink, delete and restore, so a post into a topic held
-- that row's lock until its COMMIT and every other post into the topic queued behind
-- it. They now insert delta rows instead (no lock on the topic); a read adds the
-- deltas not yet flushed to the stored count (topics/repo.ts countedTopics), so the
-- count stays exact, and the topic-counts job folds them into topics.post_count every
-- few seconds in one statement (delete ... returning + update), which a read sees whole
-- or not at all.
create table topic_post_deltas (
	community_id integer not null,
	-- No foreign key: a topic's deletion cascades to its links, whose triggers write
	-- here mid-cascade; the flush drops the deltas of topics that are gone.
	topic_id text not null,
	id bigint generated always as identity,
	delta integer not null,
	primary key (community_id, topic_id, id)
);

create or replace function topic_links_added() returns trigger language plpgsql as $$
begin
	insert into topic_post_deltas (community_id, topic_id, delta)
	select t.community_id, t.id, x.n
	from (select a.topic_id, count(*)::int as n from added a join posts p on p.id = a.post_id
		where not p.is_deleted group by a.topic_id) x
	join topics t on t.id = x.topic_id;
	return null;
end $$;

create or replace function topic_links_removed() returns trigger language plpgsql as $$
begin
	insert into topic_post_deltas (community_id, topic_id, delta)
	select t.community_id, t.id, -x.n
	from (select r.topic_id, count(*)::int as n from removed r
		where not coalesce((select is_deleted from posts where id = r.post_id), false)
		group by r.topic_id) x
	join topics t on t.id = x.topic_id;
	return null;
end $$;

create or replace function topic_posts_deleted() returns trigger language plpgsql as $$
begin
	insert into topic_post_deltas (community_id, topic_id, delta)
	select t.community_id, t.id, case when new.is_deleted then -1 else 1 end
	from post_topics pt join topics t on t.id = pt.topic_id
	where pt.post_id = new.id;
	return new;
end $$;
