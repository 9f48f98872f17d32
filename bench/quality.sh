#!/usr/bin/env bash
# Scheduling-quality benchmarks on real traces (issue 5; docs/simulator.md), with the release
# build's `muster sim`:
#   openb   the FGD paper's placement protocol (ATC'23) on every openb pod list, each policy over
#           10 seeds, beside the published figures;
#   philly  the Philly trace replayed through the real controller in virtual time, per queueing
#           policy, on 60 nodes x 8 GPUs: every policy on the first 10,000 jobs (strict FIFO and
#           FIFO with backfill take minutes to an hour there: queues of thousands of jobs, and
#           backfill's per-GPU reservations), and the SRTF oracle and Muster on all 82,247 jobs
#           (offered load 0.78) as "philly_full".
# Writes bench/results/quality.json and bench/results/quality.md (the report: ours and the
# published figures side by side), plus the plots and time series beside them.
# Usage: bench/quality.sh [--quick]   (--quick: 2 seeds on the default pod list, the first 1,500
#                                      Philly jobs and no full trace; under five minutes. The full
#                                      run takes about 40 minutes)
# Environment: MUSTER_TRACES (default ../shared/data/traces), MUSTER_BUILD (build/release).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [[ "${1:-}" == "--quick" ]]; then quick=1; elif [[ $# -gt 0 ]]; then
  echo "usage: bench/quality.sh [--quick]" >&2
  exit 2
fi
traces=${MUSTER_TRACES:-../shared/data/traces}
build=${MUSTER_BUILD:-build/release}
if [[ ! -f "$traces/philly/philly.csv" || ! -f "$traces/openb/openb_node_list_gpu_node.csv" ]]; then
  echo "bench/quality.sh: the traces are not in '$traces' (set MUSTER_TRACES)" >&2
  exit 1
fi
if [[ "$build" == build/release ]]; then
  { cmake --preset release -DMUSTER_BUILD_TESTS=OFF && cmake --build --preset release --target muster; } >&2
fi
muster=$build/muster
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ((quick)); then
  seeds=2
  lists=(default)
  slice=(--slice 1500)
  full=0
else
  seeds=10
  lists=(default gpushare40 multigpu20 multigpu30 multigpu40 multigpu50)
  slice=(--slice 10000)
  full=1
fi
start=$(date +%s)
for list in "${lists[@]}"; do
  echo "== openb $list ($seeds seeds)" >&2
  extra=()
  if [[ $list == default ]]; then extra=(--svg "$out/openb-default-alloc.svg" --csv "$out/openb-default.csv"); fi
  "$muster" sim openb --nodes "$traces/openb/openb_node_list_gpu_node.csv" \
    --pods "$traces/openb/openb_pod_list_$list.csv" --seeds "$seeds" --json "$tmp/openb-$list.json" "${extra[@]}" >&2
done
echo "== philly ${slice[*]}" >&2
"$muster" sim philly --trace "$traces/philly/philly.csv" "${slice[@]}" --json "$tmp/philly.json" \
  --csv "$out/philly-series.csv" --svg "$out/philly-jct-cdf.svg" >&2
if ((full)); then
  for policy in srtf_oracle muster; do
    echo "== philly, every job: $policy" >&2
    "$muster" sim philly --trace "$traces/philly/philly.csv" --policy "$policy" --json "$tmp/philly-full-$policy.json" >&2
  done
fi
wall=$(($(date +%s) - start))

python3 - "$tmp" "$out" "$quick" "$seeds" "$wall" "${lists[@]}" <<'PY'
import json, sys, datetime
tmp, out, quick, seeds, wall, lists = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:]
openb = {l: json.load(open(f"{tmp}/openb-{l}.json")) for l in lists}
philly = json.load(open(f"{tmp}/philly.json"))
import os
full = {}
for k in ["srtf_oracle", "muster"]:
    path = f"{tmp}/philly-full-{k}.json"
    if os.path.exists(path):
        d = json.load(open(path))
        full[k] = dict(d["policies"][k], jobs=d["jobs"])
keys = ["random", "dotprod", "gpupacking", "bestfit", "fgd", "muster"]
qkeys = ["fifo", "fifo_backfill", "sjf_oracle", "srtf_oracle", "muster"]
def pick(d, fields):
    return {f: d.get(f) for f in fields}
result = {
    "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "quick": quick,
    "openb": {k: pick(openb["default"][k], ["alloc_100", "alloc_130", "frag_rate_80"]) for k in keys},
    "openb_pod_lists": {l: {k: pick(openb[l][k], ["alloc_100", "alloc_130", "frag_rate_80"]) for k in keys} for l in lists},
    "openb_seeds": seeds,
    "philly": {k: pick(philly["policies"][k], ["avg_jct_s", "p50_jct_s", "p99_jct_s", "avg_queue_s", "makespan_s",
                                             "avg_slowdown", "gpu_utilization", "preemptions", "wall_s"])
               for k in qkeys},
    "philly_setup": {k: philly[k] for k in ["jobs", "cluster", "offered_load", "overestimate", "restart_penalty_s"]},
    "philly_full": {k: pick(v, ["jobs", "avg_jct_s", "p50_jct_s", "p99_jct_s", "avg_queue_s", "makespan_s",
                                "avg_slowdown", "gpu_utilization", "preemptions", "wall_s"]) for k, v in full.items()},
    "wall_s": wall,
}
json.dump(result, open(f"{out}/quality.json", "w"), indent=2)

def f(v, d):
    return "-" if v is None else f"{v:.{d}f}"
md = ["# Scheduling quality on real traces", "",
      f"Generated {result['generated']} by `bench/quality.sh{' --quick' if quick else ''}` in {wall} s "
      "(release build). Figures are ours unless marked published.", "",
      f"## Placement: the FGD protocol on openb (default pod list, {seeds} seeds)", "",
      "| policy | alloc @100% | published | alloc @130% | published | frag rate @80% | published |",
      "|---|---|---|---|---|---|---|"]
for k in keys:
    r = openb["default"][k]
    p = r.get("published", {})
    md.append(f"| {k} | {f(r['alloc_100'],2)} | {f(p.get('alloc_100'),2)} | {f(r['alloc_130'],2)} | "
              f"{f(p.get('alloc_130'),2)} | {f(r['frag_rate_80'],1)} | {f(p.get('frag_rate_80'),1)} |")
if len(lists) > 1:
    md += ["", "Allocation @130% on the other pod lists (ours / published):", "",
           "| pod list | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
    for l in lists[1:]:
        cells = []
        for k in keys:
            r = openb[l][k]
            p = r.get("published", {}).get("alloc_130")
            cells.append(f"{f(r['alloc_130'],2)} / {f(p,2)}")
        md.append(f"| {l} | " + " | ".join(cells) + " |")
s = philly["cluster"]
md += ["", f"## Queueing: Philly ({philly['jobs']} jobs)", "",
       f"{s['nodes']} nodes x {s['gpus_per_node']} GPUs ({s['gpus']}) under leaf switches of {s['nodes_per_leaf']}; "
       f"offered load {philly['offered_load']:.2f}; fifo_backfill's time limits are {philly['overestimate']} x the "
       f"duration; a preempted job loses {philly['restart_penalty_s']} s of work. Times in hours.", "",
       "| policy | avg JCT | p50 JCT | p99 JCT | avg queue | avg slowdown | makespan (days) | GPU util | preemptions | vs SRTF | FIFO / policy |",
       "|---|---|---|---|---|---|---|---|---|---|---|"]
P = philly["policies"]
for k in qkeys:
    r = P[k]
    md.append(f"| {k} | {r['avg_jct_s']/3600:.2f} | {r['p50_jct_s']/3600:.2f} | {r['p99_jct_s']/3600:.1f} | "
              f"{r['avg_queue_s']/3600:.2f} | {r['avg_slowdown']:.1f} | {r['makespan_s']/86400:.1f} | "
              f"{100*r['gpu_utilization']:.1f}% | {r['preemptions']} | {r['avg_jct_s']/P['srtf_oracle']['avg_jct_s']:.3f} | "
              f"{P['fifo']['avg_jct_s']/r['avg_jct_s']:.2f} |")
if full:
    md += ["", "Every job of the trace (82,247; offered load 0.78), the bound and Muster:", "",
           "| policy | avg JCT | p50 JCT | p99 JCT | avg queue | makespan (days) | GPU util | preemptions | vs SRTF | replay wall s |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k, r in full.items():
        md.append(f"| {k} | {r['avg_jct_s']/3600:.2f} | {r['p50_jct_s']/3600:.2f} | {r['p99_jct_s']/3600:.1f} | "
                  f"{r['avg_queue_s']/3600:.2f} | {r['makespan_s']/86400:.1f} | {100*r['gpu_utilization']:.1f}% | "
                  f"{r['preemptions']} | {r['avg_jct_s']/full['srtf_oracle']['avg_jct_s']:.3f} | {r['wall_s']:.0f} |")
md += ["", "Goals: Muster's average JCT within 1.15x of the SRTF oracle's and at least 2x better than strict FIFO's.",
       "Published reference (Helios, SC'21, on its own Philly derivation): average JCT SRTF : SJF : FIFO about "
       "1 : 1.12 : 2.81.", ""]
open(f"{out}/quality.md", "w").write("\n".join(md))
print("\n".join(md))
PY
