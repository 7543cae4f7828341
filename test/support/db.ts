// The tests' own SQL: setup and inspection, often across communities. On Citus
// (scripts/test-citus.sh) every statement the app sends must run on one shard, so these go
// through a pool of their own with that check off; elsewhere they share the app's pool.
import postgres from 'postgres'
import { config } from '../../src/config'
import { sql as appSql } from '../../src/lib/db'

export const sql: postgres.Sql = process.env.TEST_CITUS
	? postgres(config.DATABASE_URL, {
			max: 4,
			idle_timeout: 30,
			onnotice: () => {},
			transform: { undefined: null },
			connection: { 'citus.multi_task_query_log_level': 'off' },
		})
	: appSql
