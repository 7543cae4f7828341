-- Every app launch writes a refresh token; the hourly cleanup (jobs/refresh-token-cleanup.ts)
-- deletes those expired for over a day, found by this index instead of a scan of them all.
create index refresh_tokens_expiry on refresh_tokens (expires_at);
