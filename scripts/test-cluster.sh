#!/usr/bin/env bash
# The feed, graph, webhook and live-update tests again on a 3-node Redis Cluster on loopback
# (random ports in 17000-17999, nothing on disk), stopped on exit. Part of npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
bun=./node_modules/.bin/bun
cluster_env=$($bun run scripts/redis-cluster.ts start)
cluster_nodes=$(sed -n 's/.*REDIS_CLUSTER_NODES=\([^ ]*\).*/\1/p' <<<"$cluster_env")
cluster_dir=$(sed -n 's/.*CLUSTER_DIR=\([^ ]*\).*/\1/p' <<<"$cluster_env")
trap '$bun run scripts/redis-cluster.ts stop "$cluster_dir"' EXIT
echo "Redis Cluster for the cluster run: $cluster_nodes"
TEST_REDIS_CLUSTER_NODES="$cluster_nodes" $bun test --timeout 20000 test/feeds test/connections test/webhooks test/live
