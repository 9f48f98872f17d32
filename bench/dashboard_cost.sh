#!/usr/bin/env bash
# The dashboard's views on 1,000 nodes with 10,000 jobs (bench/dashboard_cost.cc), release build;
# the figures go to bench/results/dashboard_cost.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release -DMUSTER_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target dashboard_cost >/dev/null
mkdir -p bench/results
{
  echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD), $(nproc) cpus, load $(cut -d' ' -f1 /proc/loadavg)"
  build/release/dashboard_cost
} | tee bench/results/dashboard_cost.txt
