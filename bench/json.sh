#!/usr/bin/env bash
# The JSON libraries on squeue --json's path with 10,000 jobs (bench/json_bench.cc): builds the
# release preset's json_bench (only what changed), runs it, and prints each step's time with
# Boost.JSON and with nlohmann and their ratio, as JSON (bench/results/json.json with --save).
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
for step in ("ListEncode", "ListDecode", "SqueueJsonOutput"):
    boost, nl = ms[step + "_Boost"], ms[step + "_Nlohmann"]
    rows[step] = {"boost_ms": boost, "nlohmann_ms": nl, "nlohmann_over_boost": round(nl / boost, 2)}
text = json.dumps(rows, indent=2)
print(text)
if sys.argv[2] == "--save":
    open("bench/results/json.json", "w").write(text + "\n")
PY
