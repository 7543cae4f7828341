-- activities_unread (recipient_id) where not is_read repeated the leading column and the
-- condition of activities_open_group (recipient_id, action, group_key) where not is_read,
-- which answers the unread count, the snapshot's unread versions and "mark all read" with
-- the same plans. Every notification written or regrouped (each like of a post joins its
-- group) paid for both.
drop index if exists activities_unread;
