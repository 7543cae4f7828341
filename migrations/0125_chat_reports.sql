-- Reports in chat (DESIGN §17): a conversation reported by `auto_hide_after_reports`
-- distinct members is held back — every chat page and sync answers it as removed
-- (no text, no attachments) until a CM closes its reports. The reporter's own view
-- (a reported conversation, or a reported member's messages, gone from their chat
-- pages) is read from the reports themselves, by reporter.
alter table conversations add column held boolean not null default false;

create index reports_by_reporter on reports (community_id, reporter_user_id, entity_type)
	where entity_type in ('conversation', 'member');
