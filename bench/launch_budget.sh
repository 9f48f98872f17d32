#!/usr/bin/env bash
# Where a job's milliseconds go, stage by stage (issue 48): a local cluster of BUILD_DIR's binaries
# (4 nodes, as bench/e2e.sh), NJOBS trivial batch jobs one after the other, each timed from
# sbatch's call to the controller's record of its end: submit, pass, launch (in five parts),
# exit, end (bench/launch_budget.py says what each one spans), with this machine's process floor
# (/bin/true, bash -c true) of the same run. Prints each job and the medians; writes OUT (default
# bench/results/launch_budget.json).
#   bench/launch_budget.sh [BUILD_DIR] [OUT]     knobs: NJOBS (50), REQUIRE_STAGES (1; 0 for a build
#   older than the agent's start times, whose launch then has no parts)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build/release}" && pwd)
out=${2:-$root/bench/results/launch_budget.json}
NJOBS=${NJOBS:-50}
command -v hyperfine >/dev/null || { echo "bench/launch_budget.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
export PATH="$build:$PATH"
dir=$(mktemp -d /tmp/muster-budget.XXXXXX)
export MUSTER_CONF=$dir/c/muster.yaml
cleanup() { muster down --dir "$dir/c" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
muster up --dir "$dir/c" --nodes 4 --gpus-per-node 8 --cpus-per-node 16 --mem-per-node 64000 >/dev/null
hyperfine -N -w 5 -r 100 --export-json "$dir/floor.json" '/bin/true' 'bash -c true' >/dev/null 2>&1
python3 "$root/bench/launch_budget.py" "$dir/c" "$NJOBS" "$dir/budget.json"
python3 - "$dir/floor.json" "$dir/budget.json" "$out" "$build" "$NJOBS" <<'PY'
import json, sys, subprocess
floor, budget, out, build, n = sys.argv[1:6]
f = {r["command"]: round(r["mean"] * 1000, 3) for r in json.load(open(floor))["results"]}
b = json.load(open(budget))
rev = subprocess.run(["git", "-C", build, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
doc = {"build": build, "commit": rev or None, "njobs": int(n), "floor_ms": f, **b}
json.dump(doc, open(out, "w"), indent=1)
print(f"floor: /bin/true {f['/bin/true']} ms, bash -c true {f['bash -c true']} ms; written {out}")
PY
