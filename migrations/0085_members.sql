-- Members (DESIGN section 17): rights a CM took from a member, a member's own profile
-- fields, and how a member left the community.

-- One row per right a CM removed from a member (modules/auth/rights.ts names the
-- rights). A member without rows holds every right; CMs and the owner hold every right
-- whatever is stored here. Read with the role (auth/repo.ts findStoredAuth) into the
-- user's auth copy in Redis, so enforcing a right costs no query. No foreign key to
-- users: users(id) is not keyed by community (DESIGN section 21); a user row is never
-- removed, only marked deleted.
create table member_right_denials (
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null,
	right_state smallint not null,
	denied_by integer,
	denied_at timestamptz not null default now(),
	primary key (community_id, user_id, right_state)
);

-- Custom profile fields a member set on their profile (PUT /community/member/profile).
create table member_profiles (
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null,
	custom_fields jsonb not null default '{}',
	updated_at timestamptz not null default now(),
	primary key (community_id, user_id)
);

-- A member who left, was removed or was banned: out of the directory, tokens revoked.
-- `left` and `removed` end when the customer id starts a session again; `banned`
-- refuses that (sessions/repo.ts findUsersAndStoreTokens) until a CM lifts it.
alter table users
	add column departed_at timestamptz,
	add column departure text check (departure in ('left', 'removed', 'banned')),
	add column departed_by integer;
