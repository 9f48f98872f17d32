#!/usr/bin/env bash
# The long kill soak: a local cluster under a submission storm (4 clients) while its controller is
# killed (kill -9) and restarted KILLS times (default 50) and its agents every third time, then
# checks that every acknowledged job ran exactly once and ended COMPLETED 0:0 (tests/soak_test.cc;
# CI runs it with 10 kills). Prints and writes the figures to bench/results/soak.json.
#   bench/soak.sh [KILLS]
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-50}
cmake --preset dev -DMUSTER_BUILD_BENCH=OFF >/dev/null
cmake --build --preset dev --target soak_test muster musterctld musterd >/dev/null
start=$(date +%s)
log=$(mktemp)
# The daemons run from copies: a rebuild while the soak runs does not swap them underneath it.
bin=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$bin"' EXIT
cp -P build/dev/muster build/dev/musterctld build/dev/musterd "$bin/"
for link in build/dev/*; do [ -L "$link" ] && cp -P "$link" "$bin/"; done  # sbatch, squeue, ... -> muster
rc=0
MUSTER_TEST_BIN_DIR=$bin MUSTER_SOAK_KILLS=$kills build/dev/soak_test 2>&1 | tee "$log" || rc=$?
secs=$(($(date +%s) - start))
line=$(grep '^\[ soak \]' "$log" | tail -1)
echo "$line (${secs} s)"
read -r ctld agents acked lost rerun wrong unacked < <(sed -E 's/.* ([0-9]+) controller kills, ([0-9]+) agent kills, ([0-9]+) jobs acknowledged: ([0-9]+) lost, ([0-9]+) run twice, ([0-9]+) recorded in the wrong state, ([0-9]+) made.*/\1 \2 \3 \4 \5 \6 \7/' <<<"$line")
mkdir -p bench/results
cat >bench/results/soak.json <<JSON
{"date": "$(date -u +%FT%TZ)", "commit": "$(git rev-parse --short HEAD)", "controller_kills": ${ctld:-0},
 "agent_kills": ${agents:-0}, "jobs_acknowledged": ${acked:-0}, "lost": ${lost:-0}, "run_twice": ${rerun:-0},
 "wrong_state": ${wrong:-0}, "never_acknowledged": ${unacked:-0}, "seconds": $secs, "passed": $([[ $rc == 0 ]] && echo true || echo false)}
JSON
exit $rc
