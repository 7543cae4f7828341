-- A user's refresh tokens, found by user: a request that finds the user's auth hash
-- gone from Redis (flushed, evicted) reads the user's recently revoked logins before
-- it trusts the hash again (modules/auth/revocation.ts), and a logout of every login
-- revokes them by user (sessions/repo.ts revokeAllForUser) — both scanned the table.
create index refresh_tokens_user on refresh_tokens (user_id);
