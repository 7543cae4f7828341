-- The revoked logins of one user, found by user: a request that finds the user's auth
-- hash gone from Redis (flushed, evicted) restores its revocation marks from here
-- before it trusts the hash again (modules/auth/revocation.ts). Partial: a new login's
-- token (revoked_at null) adds no entry, so initiate pays nothing for it.
create index refresh_tokens_revoked on refresh_tokens (user_id, revoked_at) where revoked_at is not null;
