#!/usr/bin/env bash
# Fuzzing: runs every libFuzzer target (fuzz/fuzz_*.cc, built by the asan preset: clang, ASan +
# UBSan) for SECONDS each, starting from its corpus in fuzz/corpus/<target>/, and prints the
# executions, new inputs and crashes of each. Exits 1 if any target crashed, leaked or timed out;
# the input that did is kept in build/asan/fuzz-artifacts/<target>/.
#
#   bench/fuzz.sh [SECONDS] [--merge] [--json FILE]
#
# SECONDS defaults to 60. --merge adds the inputs that found new coverage to fuzz/corpus (minimised
# with -merge=1; commit them). --json writes the figures (bench/results/fuzz.json). tools/test.sh
# runs a short pass (10 s per target) in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=60 merge=0 json=""
while (($#)); do
  case $1 in
    --merge) merge=1 ;;
    --json) json=$2; shift ;;
    [0-9]*) secs=$1 ;;
    *) echo "usage: bench/fuzz.sh [SECONDS] [--merge] [--json FILE]" >&2; exit 2 ;;
  esac
  shift
done
build=build/asan
cmake --preset asan -DMUSTER_BUILD_BENCH=OFF >/dev/null
cmake --build --preset asan --target fuzz_targets >/dev/null
targets=$(cd fuzz && ls fuzz_*.cc | sed 's/^fuzz_//; s/\.cc$//')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0 rows=()
printf '%-14s %10s %8s %8s %8s\n' target executions exec/s corpus crashes >&2
for t in $targets; do
  work=$scratch/$t art=$build/fuzz-artifacts/$t
  rm -rf "$art"
  mkdir -p "$work" "$art"
  cp fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  log=$scratch/$t.log
  rc=0
  # Leaks are checked (LeakSanitizer); an input may take 10 s and 2 GiB at most.
  "$build/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$art/" "$work" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crashes=$(find "$art" -type f | wc -l)  # crash-, leak-, timeout- and oom- inputs of this run
  corpus=$(ls "$work" | wc -l)
  if ((rc != 0 || crashes > 0)); then
    failed=1
    crashes=$((crashes > 0 ? crashes : 1))
    echo "== $t failed (exit $rc); the end of its log:" >&2
    tail -40 "$log" >&2
  fi
  printf '%-14s %10s %8s %8s %8s\n' "$t" "${execs:-0}" "${speed:-0}" "$corpus" "$crashes" >&2
  rows+=("{\"target\": \"$t\", \"seconds\": $secs, \"executions\": ${execs:-0}, \"exec_per_s\": ${speed:-0}, \"corpus\": $corpus, \"crashes\": $crashes}")
  if ((merge)); then
    "$build/fuzz_$t" -merge=1 "fuzz/corpus/$t" "$work" >/dev/null 2>&1 || true
  fi
done
if [[ -n $json ]]; then
  {
    echo "{\"date\": \"$(date -u +%FT%TZ)\", \"commit\": \"$(git rev-parse --short HEAD)\", \"targets\": ["
    (IFS=$',\n'; echo "${rows[*]}")
    echo "]}"
  } >"$json"
fi
exit $failed
