-- Webhooks: registrations, one delivery row per (event, webhook) written in the
-- event's transaction (the outbox), and the log of every attempt. Times are epoch ms.

-- Time-ordered 24-hex ids made inside SQL, so recordEvent can insert an event and its
-- deliveries in one statement (same shape as lib/ids.ts newId()).
create function plaza_new_id() returns text language sql volatile as $$
	select lpad(to_hex(floor(extract(epoch from clock_timestamp()))::bigint), 8, '0')
		|| substr(replace(gen_random_uuid()::text, '-', ''), 1, 16)
$$;

create table webhooks (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	webhook_type text not null,
	url text not null,
	-- the whsec_ secret, sealed with SECRET_KEY (lib/crypto encrypt)
	sealed_secret text not null,
	is_active boolean not null default true,
	deactivated_at bigint,
	deactivation_reason text,
	created_at bigint not null,
	updated_at bigint not null
);
create unique index webhooks_type_url on webhooks (community_id, webhook_type, url);
create index webhooks_active_type on webhooks (community_id, webhook_type) where is_active;

-- status: pending (waiting for an attempt), delivered, failed (retries exhausted),
-- discarded (webhook deactivated or deleted first). `attempt` counts attempts made.
-- `queued` is set once the relay has put the row in the Redis schedule.
create table webhook_deliveries (
	id text primary key default plaza_new_id(),
	webhook_id text not null references webhooks(id) on delete cascade,
	event_id text not null references events(id) on delete cascade,
	community_id integer not null,
	status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'discarded')),
	attempt integer not null default 0,
	due_at bigint not null,
	queued boolean not null default false,
	created_at bigint not null,
	updated_at bigint not null
);
create index webhook_deliveries_unqueued on webhook_deliveries (id) where status = 'pending' and not queued;
create index webhook_deliveries_pending on webhook_deliveries (id) where status = 'pending';
create index webhook_deliveries_webhook on webhook_deliveries (webhook_id, status);

create table webhook_attempts (
	id text primary key,
	delivery_id text not null references webhook_deliveries(id) on delete cascade,
	webhook_id text not null references webhooks(id) on delete cascade,
	event_id text not null,
	event text not null,
	attempt integer not null,
	status text not null check (status in ('delivered', 'failed')),
	status_code integer,
	duration_ms integer not null,
	error text,
	created_at bigint not null
);
create index webhook_attempts_webhook on webhook_attempts (webhook_id, created_at);
create index webhook_attempts_delivery on webhook_attempts (delivery_id);
