-- DESIGN §21: the owner phone index as a reference table. The dashboard's OTP login
-- finds the owner by phone number alone, before any community is known; on Citus the
-- unique index on users holds per shard only (0199 makes it per community), so the
-- number's one owner is kept here, a copy on every node, keyed by the number. The
-- community column is `owner_community_id`, not `community_id`: this is no tenant
-- table, and 0199 distributes every table with a `community_id`.
create table owner_phones (
	country_code text not null,
	mobile_no text not null,
	owner_community_id integer not null,
	user_id integer not null,
	primary key (country_code, mobile_no)
);

insert into owner_phones (country_code, mobile_no, owner_community_id, user_id)
select country_code, mobile_no, community_id, id from users
where role = 'owner' and country_code is not null and mobile_no is not null;

do $$
begin
	if exists (select 1 from pg_extension where extname = 'citus') then
		perform create_reference_table('owner_phones');
	end if;
end $$;
