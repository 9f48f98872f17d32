#!/usr/bin/env bash
# "Behaviour does not change": two builds of Muster (an older commit's and this one's, both release)
# compared in one run, for a refactoring's closing note.
#   bench/before_after.sh OLD_BUILD NEW_BUILD [OUT_DIR]
# 1. the scheduler core: core_bench of each, the 1,000-node configurations, alternately; new/old
#    time ratios (< 1: the new one is faster);
# 2. the Philly queueing benchmark on the trace's first 10,000 jobs (fifo_backfill, by far the
#    slowest to replay: 2,000) and the openb placement benchmark (3 seeds), old and new side by
#    side: the JSON of each, identical but for wall times;
# 3. the end-to-end benchmark (bench/e2e.sh, E2E_NJOBS=300 jobs a run, RUNS=1 LAT_REPS=3) in
#    ABBA order (E2E_ORDER, default "old new new old"): each run's figures and new/old of the
#    means, since this machine's speed drifts within minutes;
# 4. the Slurm compatibility check (compat/run.sh against the live Slurm peer once, then each
#    build): the set of commands that differ from Slurm, which must be the same.
# Prints a summary and writes OUT_DIR/summary.json (default /tmp/muster-before-after).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(cd "${1:?usage: before_after.sh OLD_BUILD NEW_BUILD [OUT_DIR]}" && pwd)
new=$(cd "${2:?usage: before_after.sh OLD_BUILD NEW_BUILD [OUT_DIR]}" && pwd)
out=${3:-/tmp/muster-before-after}
E2E_NJOBS=${E2E_NJOBS:-300}
E2E_ORDER=${E2E_ORDER:-old new new old}
mkdir -p "$out"
traces=$root/../shared/data/traces
log() { printf '[before/after %s] %s\n' "$(date +%T)" "$*" >&2; }
for b in "$old" "$new"; do
  for f in muster musterctld musterd core_bench; do [[ -x $b/$f ]] || { echo "no $b/$f" >&2; exit 2; }; done
done
sim() { if [[ -x $1/muster-sim ]]; then "$1/muster-sim" sim "${@:2}"; else "$1/muster" sim "${@:2}"; fi; }

log "core: core_bench, 1,000-node configurations, old and new alternately"
for r in 1 2; do
  for side in old new; do
    b=$old; [[ $side == new ]] && b=$new
    "$b/core_bench" --benchmark_filter='(nodes:1000/|nodes:1000$)' --benchmark_format=json >"$out/core_${side}_$r.json" 2>/dev/null
  done
done

log "Philly, first 10,000 jobs (fifo_backfill: 2,000), each policy; openb, 3 seeds; old and new side by side"
sims() {  # side build
  local p n
  for p in fifo sjf_oracle srtf_oracle muster fifo_backfill; do
    n=10000; [[ $p == fifo_backfill ]] && n=2000
    sim "$2" philly --trace "$traces/philly/philly.csv" --slice $n --policy $p --json "$out/philly_${p}_$1.json" >"$out/philly_${p}_$1.txt"
  done
  sim "$2" openb --nodes "$traces/openb/openb_node_list_gpu_node.csv" --pods "$traces/openb/openb_pod_list_default.csv" \
    --seeds 3 --json "$out/openb_$1.json" >"$out/openb_$1.txt"
}
sims old "$old" & old_pid=$!
sims new "$new" & new_pid=$!
wait $old_pid; wait $new_pid

log "end to end: bench/e2e.sh, old/new/new/old (E2E_ORDER), $E2E_NJOBS jobs a run"
i=0
for side in $E2E_ORDER; do
  i=$((i + 1)); b=$old; [[ $side == new ]] && b=$new
  NJOBS=$E2E_NJOBS RUNS=1 LAT_REPS=3 "$root/bench/e2e.sh" "$b" >"$out/e2e_${i}_$side.txt"
  cp "$root/bench/results/e2e.json" "$out/e2e_${i}_$side.json"
done
git -C "$root" checkout -q -- bench/results/e2e.json 2>/dev/null || true

log "Slurm compatibility: the peer once, then each build"
"$root/compat/run.sh" slurm "$out/compat_raw/slurm" >/dev/null
for side in old new; do
  b=$old; [[ $side == new ]] && b=$new
  "$root/compat/run.sh" muster "$out/compat_raw/muster_$side" "$b" >/dev/null
  mkdir -p "$out/compat_$side"
  rm -f "$out/compat_$side/slurm" "$out/compat_$side/muster"
  ln -s "$out/compat_raw/slurm" "$out/compat_$side/slurm"
  ln -s "$out/compat_raw/muster_$side" "$out/compat_$side/muster"
  COMPAT_RAW="$out/compat_$side" "$root/compat/compare.sh" --no-run >/dev/null
  grep '| differs |' "$root/compat/results/summary.md" | cut -d'|' -f2 | tr -d ' ' >"$out/compat_differ_$side.txt"
done
git -C "$root" checkout -q -- compat/results 2>/dev/null || true

python3 - "$out" <<'PY'
import json, sys, statistics
out = sys.argv[1]
def strip_wall(x):
    if isinstance(x, dict):
        return {k: strip_wall(v) for k, v in x.items() if not k.startswith("wall")}
    if isinstance(x, list):
        return [strip_wall(v) for v in x]
    return x
summary = {}
# core
times = {"old": {}, "new": {}}
for side in ("old", "new"):
    for r in (1, 2):
        for b in json.load(open(f"{out}/core_{side}_{r}.json"))["benchmarks"]:
            times[side].setdefault(b["name"], []).append(b["real_time"])
core = {}
for name in times["old"]:
    o, n = statistics.median(times["old"][name]), statistics.median(times["new"].get(name, [float("nan")]))
    core[name] = round(n / o, 3)
summary["core_new_over_old"] = core
# sims
for kind in ["philly_" + p for p in ("fifo", "sjf_oracle", "srtf_oracle", "muster", "fifo_backfill")] + ["openb"]:
    a = strip_wall(json.load(open(f"{out}/{kind}_old.json")))
    b = strip_wall(json.load(open(f"{out}/{kind}_new.json")))
    summary[f"{kind}_json_identical_but_wall"] = a == b
# e2e: each run's means, by side in the order run (ABBA), and new/old of their means
import glob, re
def flat(d, p=""):
    r = {}
    for k, v in d.items():
        if isinstance(v, dict):
            r.update(flat(v, p + k + "."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            r[p + k] = v
    return r
runs = {"old": [], "new": []}
for f in sorted(glob.glob(f"{out}/e2e_*_*.json"), key=lambda f: int(re.search(r"e2e_(\d+)_", f).group(1))):
    runs["new" if f.endswith("_new.json") else "old"].append(flat(json.load(open(f))))
keys = [k for k in (runs["old"][0] if runs["old"] else {}) if k.endswith(".mean")]
e2e = {}
for k in keys:
    o = [r[k] for r in runs["old"] if k in r]
    n = [r[k] for r in runs["new"] if k in r]
    if o and n and statistics.mean(o):
        e2e[k[:-5]] = {"old": o, "new": n, "new_over_old": round(statistics.mean(n) / statistics.mean(o), 3)}
summary["e2e"] = e2e
# compat
do = open(f"{out}/compat_differ_old.txt").read().split()
dn = open(f"{out}/compat_differ_new.txt").read().split()
summary["compat_differ_old"] = len(do)
summary["compat_differ_new"] = len(dn)
summary["compat_same_set"] = do == dn
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
print(json.dumps({k: v for k, v in summary.items() if k != "e2e"}, indent=2))
for k, v in e2e.items():
    print(f"e2e {k}: old {v['old']} new {v['new']} (new/old of the means {v['new_over_old']:.2f})")
PY
