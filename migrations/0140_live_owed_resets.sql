-- Live scopes owed a `reset` marker (docs/live.md, "A lost event is announced"): a
-- writer whose publish Redis refused after its commit upserts the scope's row, and
-- the worker's `live-resets` reconciler appends the `reset` once Redis takes writes
-- again, then deletes the row. Written only when a publish failed, so the table is
-- empty while Redis is healthy and a reconciler pass costs what failed.
-- `stream` is the scope's stream key (lib/keys.ts liveStream): all a reset needs.
-- `failures` counts the refused publishes the row stands for; a pass deletes the row
-- only if no failure came after the one it saw. `claimed_until` is the lease of the
-- worker paying it, so several workers do not append the same reset.
create table live_owed_resets (
	community_id integer not null,
	stream text not null,
	failures integer not null default 1,
	owed_at timestamptz not null default now(),
	claimed_until timestamptz not null default '-infinity',
	primary key (community_id, stream)
);
