#!/usr/bin/env bash
# What TLS costs the daemons' HTTP against plain TCP, in one process on loopback (bench/tls_cost.cc),
# release build: kept-alive requests per second and a new connection plus one request, medians of
# alternating rounds, and their TLS/plain ratios. Writes bench/results/tls_cost.json.
#   bench/tls_cost.sh [ROUNDS] [REQUESTS_PER_ROUND] [CONNECTS_PER_ROUND]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release -DMUSTER_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target tls_cost >/dev/null
figures=$(build/release/tls_cost "$@")
echo "$figures"
mkdir -p bench/results
printf '{"date": "%s", "commit": "%s", "cpus": %s, "load_average_1min": %s, "figures": %s}\n' \
  "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)" "$figures" \
  >bench/results/tls_cost.json
