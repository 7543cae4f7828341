-- Projects, communities, users, sessions, the event outbox and push credentials.

create table projects (
	id text primary key,
	name text not null,
	api_key_hash text not null unique,
	created_at timestamptz not null default now()
);

create table communities (
	id serial primary key,
	project_id text not null unique references projects(id) on delete cascade,
	name text not null,
	created_at timestamptz not null default now()
);

-- Members, community managers and dashboard owners are all users of a community;
-- owners are found by their mobile number, members by the customer's unique id.
create table users (
	id serial primary key,
	uuid uuid not null unique,
	community_id integer not null references communities(id) on delete cascade,
	user_unique_id text not null,
	name text not null,
	image_url text not null default '',
	custom_title text not null default '',
	is_guest boolean not null default false,
	is_deleted boolean not null default false,
	role text not null default 'member' check (role in ('member', 'cm', 'owner')),
	country_code text,
	mobile_no text,
	last_active_at timestamptz not null default now(),
	created_at timestamptz not null default now(),
	unique (community_id, user_unique_id)
);
create unique index users_owner_mobile on users (country_code, mobile_no) where role = 'owner';

-- Refresh tokens rotate on every use; a family is every token descending from one
-- login, so reuse of a rotated token can revoke the whole family.
create table refresh_tokens (
	token_hash text primary key,
	family_id text not null,
	user_id integer not null references users(id) on delete cascade,
	expires_at timestamptz not null,
	rotated_at timestamptz,
	revoked_at timestamptz,
	created_at timestamptz not null default now()
);
create index refresh_tokens_family on refresh_tokens (family_id);

-- The outbox: one row per event, written in the transaction of the change.
create table events (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	event text not null,
	source text not null,
	data jsonb not null,
	created_at bigint not null
);
create index events_community_created on events (community_id, created_at);

create table push_credentials (
	project_id text primary key references projects(id) on delete cascade,
	provider_project_id text not null,
	client_email text not null,
	private_key_id text not null,
	sealed_file text not null,
	updated_at timestamptz not null default now()
);
