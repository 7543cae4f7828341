-- A member's chosen topics (PATCH /feed/user/:uuid/topics, GET /feed/user/topics): the
-- personalised feed ranks their posts up (timelines/personalised-repo.ts topicAffinity).
create table user_topics (
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	topic_id text not null references topics(id) on delete cascade,
	created_at bigint not null,
	primary key (community_id, user_id, topic_id)
);
create index user_topics_topic on user_topics (community_id, topic_id);
