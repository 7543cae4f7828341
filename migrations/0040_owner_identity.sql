-- The dashboard owner is identified by its phone number (country_code, mobile_no), never
-- by a customer-chosen user_unique_id: POST /sdk/initiate, which any app holding the API
-- key can call, looks users up by user_unique_id, so an owner must have none. Owners
-- created before this migration carried `owner:<cc>-<mobile>` there, which initiate
-- could name (issue 15, finding 1).
alter table users alter column user_unique_id drop not null;
update users set user_unique_id = null where role = 'owner';
alter table users add constraint users_owner_outside_customer_ids
	check ((role = 'owner') = (user_unique_id is null));
