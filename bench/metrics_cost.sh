#!/usr/bin/env bash
# What scraping musterctld's GET /metrics costs on a simulated 1,000-node cluster with 10,000 jobs
# (bench/metrics_cost.cc), release build. Writes bench/results/metrics_cost.json.
#   bench/metrics_cost.sh [NODES] [JOBS] [SCRAPES] [PASSES] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release -DMUSTER_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target metrics_cost >/dev/null
figures=$(build/release/metrics_cost "$@")
echo "$figures"
mkdir -p bench/results
printf '{"date": "%s", "commit": "%s", "cpus": %s, "load_average_1min": %s, "figures": %s}\n' \
  "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)" "$figures" \
  >bench/results/metrics_cost.json
