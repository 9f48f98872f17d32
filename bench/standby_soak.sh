#!/usr/bin/env bash
# The long leader-kill soak: a local cluster of two controllers sharing a PostgreSQL state (a
# private server, tools/pg-test-server.sh) under a submission storm (4 clients) while the leader is
# killed (kill -9) ROUNDS times (default 24; every fifth round the standby instead), each killed
# controller coming back as a standby; then checks that every acknowledged job exists once, ran
# exactly once and ended COMPLETED 0:0 in sacct (tests/soak_test.cc, StandbySoak; CI runs it with 4
# rounds). Prints and writes the figures to bench/results/standby_soak.json.
#   bench/standby_soak.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-24}
cmake --preset dev -DMUSTER_BUILD_BENCH=OFF >/dev/null
cmake --build --preset dev --target soak_test muster musterctld musterd >/dev/null
start=$(date +%s)
log=$(mktemp)
# The daemons run from copies: a rebuild while the soak runs does not swap them underneath it.
bin=$(mktemp -d)
pg_dir=$(mktemp -d /tmp/muster-pg.XXXXXX)
cleanup() {
  bash tools/pg-test-server.sh stop "$pg_dir" >/dev/null 2>&1 || true
  rm -rf "$log" "$bin" "$pg_dir"
}
trap cleanup EXIT
cp -P build/dev/muster build/dev/musterctld build/dev/musterd "$bin/"
for link in build/dev/*; do [ -L "$link" ] && cp -P "$link" "$bin/"; done  # sbatch, squeue, ... -> muster
MUSTER_TEST_PG_URL=$(bash tools/pg-test-server.sh start "$pg_dir")
export MUSTER_TEST_PG_URL MUSTER_REQUIRE_PG=1
rc=0
MUSTER_TEST_BIN_DIR=$bin MUSTER_SOAK_TAKEOVERS=$rounds build/dev/soak_test --gtest_filter='StandbySoak.*' 2>&1 |
  tee "$log" || rc=$?
secs=$(($(date +%s) - start))
line=$(grep '^\[ soak \]' "$log" | tail -1)
echo "$line (${secs} s)"
read -r n leaders standbys longest acked lost rerun wrong unacked < <(sed -E 's/.* ([0-9]+) rounds \(([0-9]+) leader kills, ([0-9]+) standby kills\), longest without a leader ([0-9.]+) s, ([0-9]+) jobs acknowledged: ([0-9]+) lost, ([0-9]+) run twice, ([0-9]+) recorded in the wrong state, ([0-9]+) made.*/\1 \2 \3 \4 \5 \6 \7 \8 \9/' <<<"$line")
mkdir -p bench/results
cat >bench/results/standby_soak.json <<JSON
{"date": "$(date -u +%FT%TZ)", "commit": "$(git rev-parse --short HEAD)", "rounds": ${n:-0},
 "leader_kills": ${leaders:-0}, "standby_kills": ${standbys:-0}, "longest_without_leader_s": ${longest:-0},
 "jobs_acknowledged": ${acked:-0}, "lost": ${lost:-0}, "run_twice": ${rerun:-0}, "wrong_state": ${wrong:-0},
 "never_acknowledged": ${unacked:-0}, "lease_s": 3, "seconds": $secs, "passed": $([[ $rc == 0 ]] && echo true || echo false)}
JSON
exit $rc
