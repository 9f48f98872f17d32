#!/usr/bin/env bash
# End-to-end benchmark of a running Muster cluster, measured the way
# ../shared/peers/slurm/bench.sh measures Slurm on this machine (4 nodes x 16 CPUs x 8 GPUs):
#   (a) NJOBS trivial jobs submitted through the CLI while they run: submit rate and time until all
#       are COMPLETED, sequential and with PAR parallel submitters;
#   (c) NJOBS submitted into a blocked queue (all nodes drained): submit rate; squeue / squeue -l /
#       squeue --json / sinfo / scontrol show job latency with NJOBS pending (hyperfine); then
#       resume and the drain rate;
#   (d) idle node: sbatch call -> first line of the script; freed GPUs (an 8-GPU job ends) -> the
#       next pending 4-GPU job's first line;
#   and this machine's process-creation cost (/bin/true, bash -c true), which bounds (a).
# Prints a summary and writes bench/results/e2e.json. Knobs: NJOBS (1000) RUNS (3) PAR (8) LAT_REPS (5).
#   bench/e2e.sh [BUILD_DIR]   (default build/release, rebuilt incrementally first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
NJOBS=${NJOBS:-1000}; RUNS=${RUNS:-3}; PAR=${PAR:-8}; LAT_REPS=${LAT_REPS:-5}
if [[ $build == "$root/build/release" ]]; then  # (re)build what changed
  (cd "$root" && cmake --preset release -DMUSTER_BUILD_TESTS=OFF >/dev/null && cmake --build --preset release) >&2
fi
command -v hyperfine >/dev/null || { echo "bench/e2e.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
export PATH="$build:$PATH"
dir=$(mktemp -d /tmp/muster-e2e.XXXXXX)
export MUSTER_CONF=$dir/c/muster.yaml
cleanup() { muster down --dir "$dir/c" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
log() { printf '[e2e %s] %s\n' "$(date +%T)" "$*" >&2; }
now() { date +%s.%N; }
RAW=$dir/raw.tsv; : > "$RAW"
rec() { printf '%s\t%s\n' "$1" "$2" >> "$RAW"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.4f", a-b}'; }
# The queue is polled exactly as the Slurm peer's bench.sh polls it (every 0.25 s, with a timeout):
# the poller's own processes compete with the jobs for this machine's two cores, so a faster poll
# here would be a different measurement.
qcount() { squeue -h -o %i 2>/dev/null | wc -l; }
wait_empty() { local t=${1:-900} s; s=$(date +%s); while [ "$(qcount)" -gt 0 ]; do
  [ $(( $(date +%s) - s )) -gt $t ] && { log "wait_empty timeout"; return 1; }; sleep 0.25; done; }

muster up --dir "$dir/c" --nodes 4 --gpus-per-node 8 --cpus-per-node 16 --mem-per-node 64000 >&2
mkdir -p "$dir/w" && cd "$dir/w"

log "process creation cost"
hyperfine -N -w 5 -r 200 --export-json "$dir/hf_proc.json" '/bin/true' 'bash -c true' >/dev/null 2>&1

for r in $(seq 1 "$RUNS"); do
  log "run $r: sequential sbatch x$NJOBS"
  t0=$(now)
  for i in $(seq 1 "$NJOBS"); do sbatch -o /dev/null -n1 --wrap true >/dev/null; done
  t1=$(now); wait_empty; t2=$(now)
  rec seq_submit_jps "$(awk -v n="$NJOBS" -v d="$(sub "$t1" "$t0")" 'BEGIN{printf "%.1f", n/d}')"
  rec seq_makespan_s "$(sub "$t2" "$t0")"
  log "run $r: parallel sbatch x$NJOBS (xargs -P $PAR)"
  t0=$(now)
  seq 1 "$NJOBS" | xargs -P "$PAR" -I{} sbatch -o /dev/null -n1 --wrap true >/dev/null
  t1=$(now); wait_empty; t2=$(now)
  rec par_submit_jps "$(awk -v n="$NJOBS" -v d="$(sub "$t1" "$t0")" 'BEGIN{printf "%.1f", n/d}')"
  rec par_makespan_s "$(sub "$t2" "$t0")"

  log "run $r: parallel sbatch x$NJOBS into a blocked queue (all nodes drained)"
  scontrol update NodeName=node[1-4] State=DRAIN Reason=bench
  t0=$(now)
  seq 1 "$NJOBS" | xargs -P "$PAR" -I{} sbatch -o /dev/null -n1 --wrap true >/dev/null
  t1=$(now)
  rec pend_submit_jps "$(awk -v n="$NJOBS" -v d="$(sub "$t1" "$t0")" 'BEGIN{printf "%.1f", n/d}')"
  rec pend_count "$(qcount)"
  hyperfine -N -w 3 -r 20 --export-json "$dir/hf_pending_$r.json" \
    'squeue' 'squeue -l' 'squeue --json' 'sinfo' 'scontrol show job' >/dev/null 2>&1
  log "run $r: resume, drain $NJOBS pending jobs"
  t2=$(now); scontrol update NodeName=node[1-4] State=RESUME; wait_empty; t3=$(now)
  rec drain_s "$(sub "$t3" "$t2")"
  rec drain_jps "$(awk -v n="$NJOBS" -v d="$(sub "$t3" "$t2")" 'BEGIN{printf "%.1f", n/d}')"
done

log "latencies: idle start, freed GPUs -> next job"
for r in $(seq 1 "$LAT_REPS"); do
  rm -f blk_start blk_end tgt_start
  ts=$(now)
  sbatch -w node1 --gres=gpu:8 -o /dev/null --wrap "date +%s.%N > $PWD/blk_start; sleep 2; date +%s.%N > $PWD/blk_end" >/dev/null
  until [ -s blk_start ]; do sleep 0.01; done
  rec idle_start_s "$(sub "$(cat blk_start)" "$ts")"
  sbatch -w node1 --gres=gpu:4 -o /dev/null --wrap "date +%s.%N > $PWD/tgt_start" >/dev/null
  until [ -s tgt_start ]; do sleep 0.01; done
  rec gpu_start_latency_s "$(sub "$(cat tgt_start)" "$(cat blk_end)")"
  wait_empty
done

mkdir -p "$root/bench/results"
python3 - "$RAW" "$dir" "$root/bench/results/e2e.json" "$NJOBS" "$RUNS" <<'PY'
import json, statistics, sys, glob, os
raw, d, out, njobs, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
vals = {}
for line in open(raw):
    k, v = line.rstrip("\n").split("\t")
    vals.setdefault(k, []).append(float(v))
lat = {}
for f in [os.path.join(d, "hf_proc.json")] + sorted(glob.glob(os.path.join(d, "hf_pending_*.json"))):
    for r in json.load(open(f))["results"]:
        lat.setdefault(r["command"], []).extend(t * 1000 for t in r["times"])
res = {"njobs": njobs, "runs": runs, "nproc": os.cpu_count()}
for k, v in vals.items():
    res[k] = {"mean": round(statistics.mean(v), 4), "min": min(v), "max": max(v), "n": len(v)}
res["latency_ms"] = {k: {"mean": round(statistics.mean(v), 2), "median": round(statistics.median(v), 2), "n": len(v)}
                     for k, v in lat.items()}
json.dump(res, open(out, "w"), indent=2)
w = 44
print(f"Muster end-to-end ({njobs} jobs, {runs} runs, {os.cpu_count()} cores; 4 nodes x 16 CPUs x 8 fake GPUs)")
for k in ["seq_submit_jps", "seq_makespan_s", "par_submit_jps", "par_makespan_s", "pend_submit_jps", "pend_count",
          "drain_s", "drain_jps", "idle_start_s", "gpu_start_latency_s"]:
    if k in res:
        r = res[k]
        print(f"{k:<{w}} mean={r['mean']:.4f} min={r['min']:.4f} max={r['max']:.4f} n={r['n']}")
for k, r in res["latency_ms"].items():
    print(f"{'latency_ms[' + k + ']':<{w}} mean={r['mean']:.2f} median={r['median']:.2f} n={r['n']}")
print(f"(written to {out})")
PY
