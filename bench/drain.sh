#!/usr/bin/env bash
# The drain of a blocked queue, alone: a local cluster (4 nodes x 8 fake GPUs) from BUILD, its
# nodes drained, NJOBS jobs submitted, the nodes resumed; prints how long until the queue is empty.
#   bench/drain.sh BUILD [NJOBS=300] [HELD=0] [JOB_OPTS="-n1"]
# HELD: that many jobs run and end first, so that the controller holds them (MinJobAge) during the
# drain, as in bench/e2e.sh's drain. For comparing two builds, run it alternately on each. The
# per-job times are in the cluster's logs ("started", "started as pid", "run N ended", "ended"),
# kept in OUT (default /tmp/muster-drain/log) after the cluster is stopped.
set -euo pipefail
build=$(cd "${1:?usage: drain.sh BUILD [NJOBS] [HELD] [JOB_OPTS]}" && pwd)
njobs=${2:-300}
held=${3:-0}
opts=${4:--n1}
dir=$(mktemp -d /tmp/muster-drain.XXXXXX)
out=${OUT:-/tmp/muster-drain/log}
m() { "$build/muster" "$@"; }
cleanup() { m down --dir "$dir/c" >/dev/null 2>&1 || true; }
trap cleanup EXIT
m up --nodes 4 --gpus-per-node 8 --dir "$dir/c" >/dev/null
export MUSTER_CONF=$dir/c/muster.yaml
empty() { while [[ $(m squeue -h | wc -l) -gt 0 ]]; do sleep 0.05; done; }
if (( held > 0 )); then
  seq 1 "$held" | xargs -P 8 -I{} "$build/muster" sbatch -o /dev/null $opts --wrap true >/dev/null
  empty
fi
m scontrol update 'NodeName=node[1-4]' State=DRAIN Reason=bench
seq 1 "$njobs" | xargs -P 8 -I{} "$build/muster" sbatch -o /dev/null $opts --wrap true >/dev/null
t0=$(date +%s.%N)
m scontrol update 'NodeName=node[1-4]' State=RESUME
empty
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v n="$njobs" 'BEGIN{printf "drain of %d jobs: %.3f s (%.1f jobs/s)\n", n, b-a, n/(b-a)}'
cleanup
trap - EXIT
mkdir -p "$out" && rm -rf "$out" && cp -r "$dir/c/log" "$out" && rm -rf "$dir"
