-- The social graph: blocks (more of the graph is added by the connections work).

create table blocks (
	community_id integer not null references communities(id) on delete cascade,
	blocker_id integer not null references users(id) on delete cascade,
	blocked_id integer not null references users(id) on delete cascade,
	created_at timestamptz not null default now(),
	primary key (blocker_id, blocked_id)
);
create index blocks_blocked on blocks (blocked_id);
