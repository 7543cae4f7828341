-- A user's refresh tokens, found by user and revocation: a request that finds the
-- user's auth hash gone from Redis (flushed, evicted) reads the user's recently revoked
-- logins before it trusts the hash again (modules/auth/revocation.ts), and a logout of
-- every login revokes the user's live ones (sessions/repo.ts revokeAllForUser) — both
-- scanned the table. With revoked_at in the key neither reads the user's other rows.
create index refresh_tokens_user on refresh_tokens (user_id, revoked_at);
