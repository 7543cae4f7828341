-- Each change of an activity row (a new or removed actor, read) bumps `version`, so the
-- Redis copy of the notification feed, written after commit by writers that may finish
-- in any order, keeps the newest state: an older version never overwrites a newer one.
alter table activities add column version bigint not null default 1;
