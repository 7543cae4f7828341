#!/usr/bin/env bash
# The whole bun test suite on a real Citus cluster: a coordinator and two workers on
# loopback (../shared/citus/local-cluster.sh, or CITUS_CLUSTER_SCRIPT), a fresh database on
# every node, the tables distributed by the migrations, and every statement the app sends
# refused unless it runs on one shard (citus.multi_task_query_log_level = error; the named
# cross-tenant jobs lower it for their own statements). The tests' own inspection queries go
# through test/support/db.ts, which is exempt. Part of npm test when the cluster script exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bun=./node_modules/.bin/bun
# The cluster script lives beside the checkout (../shared/citus), or where CITUS_CLUSTER_SCRIPT says.
cluster=${CITUS_CLUSTER_SCRIPT:-}
for candidate in ../shared/citus/local-cluster.sh /work/shared/citus/local-cluster.sh; do
	[ -n "$cluster" ] || { [ -x "$candidate" ] && cluster=$candidate; }
done
[ -n "$cluster" ] || { echo "test:citus: no local-cluster.sh (set CITUS_CLUSTER_SCRIPT)" >&2; exit 1; }
db=${TEST_CITUS_DATABASE:-plaza_test_citus}
port=${CITUS_COORDINATOR_PORT:-5441}
"$cluster" start
"$cluster" dropdb "$db"
url=$("$cluster" createdb "$db" | tail -1)
psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d "$db" \
	-c "alter database \"$db\" set citus.multi_task_query_log_level = 'error'"
echo "Citus run on $url"
TEST_CITUS=1 TEST_DATABASE_URL="$url" TEST_REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379/2} \
	$bun test --timeout 20000 "$@"
