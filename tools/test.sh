#!/usr/bin/env bash
# The whole test suite, in two builds that each build only what their tests need (and only what
# changed):
#   1. dev (g++ -O0 -g1): the daemons and commands, and the integration tests on real local clusters
#      (faults, the kill soak, srun, Slurm parity, TCP, two controllers sharing PostgreSQL), with the
#      tests that mostly wait (label "long": controller outages of minutes) run beside them;
#   2. asan (clang -O0, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer coverage): every
#      unit, scenario and property test, then each fuzz target for a short run on its corpus. It is
#      built beside the integration tests, at a low priority (they mostly wait on their daemons). The
#      PostgreSQL store's tests (and the integration tests of two controllers) run on a private
#      server (tools/pg-test-server.sh: initdb in a temporary directory, loopback only), started
#      after the dev build and stopped at the end; if it cannot start, the run fails.
# Prints the time of each phase and of the whole.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
phase_start=$start
phase() {
  local now
  now=$(date +%s)
  echo "== $1 ($((now - phase_start)) s)" >&2
  phase_start=$now
}
cmake --preset dev -DMUSTER_BUILD_BENCH=OFF >/dev/null
cmake --build --preset dev --target integration_targets
phase "dev build done"
# Under /tmp: as root the server runs as the user postgres, who must reach its directory.
pg_dir=$(mktemp -d /tmp/muster-pg.XXXXXX)
stop_pg() {
  bash tools/pg-test-server.sh stop "$pg_dir" || true
  rm -rf "$pg_dir"
}
asan_pid=""
outage_pid=""
cleanup() {
  # (their own process groups: the compilers, the tests and their daemons go with them)
  if [[ -n "$asan_pid" ]]; then kill -- -"$asan_pid" 2>/dev/null || true; fi
  if [[ -n "$outage_pid" ]]; then kill -- -"$outage_pid" 2>/dev/null || true; fi
  stop_pg
}
trap cleanup EXIT
if ! MUSTER_TEST_PG_URL=$(bash tools/pg-test-server.sh start "$pg_dir"); then
  echo "tools/test.sh: cannot start the PostgreSQL test server" >&2
  exit 1
fi
export MUSTER_TEST_PG_URL MUSTER_REQUIRE_PG=1
# CI runs as root: the network-namespace tests (tests/netns_test.cc) must run, not skip.
export MUSTER_REQUIRE_NETNS=1
phase "PostgreSQL test server started"
# The asan build runs beside the integration tests, at a low priority: the tests mostly wait on
# their daemons, and the build takes the CPU they leave (nice 15 weighs 36 against their 1024).
cmake --preset asan -DMUSTER_BUILD_BENCH=OFF >/dev/null
asan_log=$(mktemp)
setsid nice -n 15 cmake --build --preset asan --target unit_tests fuzz_targets >"$asan_log" 2>&1 &
asan_pid=$!
# The tests that mostly wait (tests/long_test.cc, label "long": controller outages of minutes while
# jobs run on, a time limit) beside them, in a ctest of their own; their output is shown at the end.
outage_log=$(mktemp)
setsid ctest --preset dev -L long >"$outage_log" 2>&1 &
outage_pid=$!
integration_rc=0
ctest --preset dev -L integration || integration_rc=$?
outage_rc=0
wait "$outage_pid" || outage_rc=$?
outage_pid=""
cat "$outage_log"
rm -f "$outage_log"
if ((integration_rc != 0 || outage_rc != 0)); then
  echo "tools/test.sh: integration tests failed (integration rc $integration_rc, long ones rc $outage_rc)" >&2
  exit 1
fi
phase "integration tests done (the long ones beside them)"
# The launch budget's short form (bench/launch_budget.sh, 10 jobs on the dev build): where a job's
# milliseconds go, in this log; it fails if a stage of a job's start is no longer logged.
budget_json=$(mktemp)
NJOBS=10 bash bench/launch_budget.sh build/dev "$budget_json"
rm -f "$budget_json"
phase "launch budget (10 jobs, dev build) done"
asan_rc=0
wait "$asan_pid" || asan_rc=$?
asan_pid=""
if ((asan_rc != 0)); then
  cat "$asan_log"
  echo "tools/test.sh: the asan build failed" >&2
  exit 1
fi
tail -n 3 "$asan_log"
rm -f "$asan_log"
phase "asan build done (begun beside the integration tests)"
ctest --preset asan -L unit
phase "unit tests (ASan + UBSan) done"
stop_pg
trap - EXIT
bash bench/fuzz.sh 5
phase "fuzzing done"
echo "== tools/test.sh passed in $(( $(date +%s) - start )) s" >&2
