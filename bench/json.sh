#!/usr/bin/env bash
# The JSON codec on squeue --json's path and the store's with 10,000 jobs (bench/json_bench.cc):
# builds the release preset's json_bench (only what changed), runs it, and prints each step's
# median time, as JSON (bench/results/json_boost.json with --save). bench/results/json.json is the
# earlier comparison of the two libraries that chose Boost.JSON, kept as it was measured.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  cmake --preset release -DMUSTER_BUILD_TESTS=OFF
  cmake --build --preset release --target json_bench
} >&2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
./build/release/json_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_format=json >"$out"
python3 - "$out" "${1:-}" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
ms = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"].removeprefix("BM_")
    ms[name] = round(b["real_time"], 2)
rows = {"jobs": 10000}
for step in ("ListEncode", "ListDecode", "SqueueJsonOutput", "RecordEncode", "RecordDecode"):
    rows[step] = {"ms": ms[step]}
text = json.dumps(rows, indent=2)
print(text)
if sys.argv[2] == "--save":
    open("bench/results/json_boost.json", "w").write(text + "\n")
PY
