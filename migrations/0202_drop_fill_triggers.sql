-- DESIGN §21: every insert names its community — the suite runs on Citus, where 0199
-- dropped these triggers — so 0190's transitional fill triggers go on plain Postgres too,
-- and both run the same schema. An insert that leaves community_id out now fails its
-- NOT NULL instead of being filled from the parent row.
do $$
declare
	fill record;
begin
	for fill in
		select tgrelid::regclass::text as tbl, tgname from pg_trigger
		where tgname like '%\_fill\_community\_id'
	loop
		execute format('drop trigger %I on %I', fill.tgname, fill.tbl);
	end loop;
	for fill in
		select proname from pg_proc
		where pronamespace = 'public'::regnamespace and proname like '%\_fill\_community\_id'
	loop
		execute format('drop function %I()', fill.proname);
	end loop;
end $$;
