#!/usr/bin/env bash
# The agent's CPU cost of watching 8 GPUs' health, at the default interval (10 s) and at 1 s, each
# for SECONDS (default 30) of wall time, release build. Writes bench/results/gpu_health.json.
#   bench/gpu_health.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
cmake --preset release -DMUSTER_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target gpu_health_cost >/dev/null
default=$(build/release/gpu_health_cost "$secs" 10000)
fast=$(build/release/gpu_health_cost "$secs" 1000)
echo "default interval: $default"
echo "1 s interval:     $fast"
mkdir -p bench/results
printf '{"date": "%s", "commit": "%s", "default_interval": %s, "one_second_interval": %s}\n' \
  "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD)" "$default" "$fast" >bench/results/gpu_health.json
