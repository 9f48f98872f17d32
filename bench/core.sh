#!/usr/bin/env bash
# Scheduler core benchmark: builds the release preset's core_bench (only what changed) and prints
# one JSON object per configuration:
#   {"nodes": 10000, "jobs": 100000, "cycle_ms": ..., "started": ..., "cycle_ms_first_fit": ...,
#    "started_first_fit": ..., "place_one_us": ...}
# and, for 10,000 jobs, the cost of the policies as ratios of the strict cycle measured beside them:
#   {"nodes": 1000, "jobs": 10000, "policy": true, "strict_ms": ..., "backfill_ms": ...,
#    "backfill_ratio": ..., "quotas_preemption_ms": ..., "quotas_preemption_ratio": ..., "preempted": ...}
# cycle_ms: one whole cycle (index build included) with Slurm's strict priority order;
# cycle_ms_first_fit: every job tried (the most placement work); place_one_us: one newly arrived
# job on a standing scheduler (the event-driven path). Clusters are half full before the cycle.
# Usage: bench/core.sh [--quick]   (--quick: 1,000-node configurations only)
set -euo pipefail
cd "$(dirname "$0")/.."
filter='.'
if [[ "${1:-}" == "--quick" ]]; then filter='(nodes:1000/|nodes:1000$)'; fi
{
  cmake --preset release -DMUSTER_BUILD_TESTS=OFF
  cmake --build --preset release --target core_bench
} >&2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
./build/release/core_bench --benchmark_filter="$filter" --benchmark_format=json >"$out"
python3 - "$out" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
cycles, place, policy = {}, {}, {}
for b in data["benchmarks"]:
    if b.get("run_type") == "aggregate":
        continue
    args = dict(kv.split(":") for kv in b["name"].split("/")[1:] if ":" in kv)
    to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    ms = b["real_time"] * to_ms
    if b["name"].startswith("BM_Cycle/"):
        key = (int(args["nodes"]), int(args["jobs"]))
        c = cycles.setdefault(key, {})
        if args["strict"] == "1":
            c["cycle_ms"] = round(ms, 2)
            c["started"] = int(b.get("started", 0))
        else:
            c["cycle_ms_first_fit"] = round(ms, 2)
            c["started_first_fit"] = int(b.get("started", 0))
    elif b["name"].startswith("BM_CyclePolicy"):
        key = (int(args["nodes"]), int(args["jobs"]))
        p = policy.setdefault(key, {})
        mode = args["mode"]
        p[{"0": "strict_ms", "1": "backfill_ms", "2": "quotas_preemption_ms"}[mode]] = round(ms, 2)
        if mode == "2":
            p["preempted"] = int(b.get("preempted", 0))
            p["started_quotas"] = int(b.get("started", 0))
    elif b["name"].startswith("BM_PlaceOne"):
        place[int(args["nodes"])] = round(ms * 1000, 2)
for (nodes, jobs), c in sorted(cycles.items()):
    row = {"nodes": nodes, "jobs": jobs}
    row.update(c)
    if nodes in place:
        row["place_one_us"] = place[nodes]
    print(json.dumps(row))
for (nodes, jobs), p in sorted(policy.items()):
    row = {"nodes": nodes, "jobs": jobs, "policy": True}
    row.update(p)
    if p.get("strict_ms"):
        for k in ("backfill", "quotas_preemption"):
            if k + "_ms" in p:
                row[k + "_ratio"] = round(p[k + "_ms"] / p["strict_ms"], 2)
    print(json.dumps(row))
PY
