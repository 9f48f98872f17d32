#!/usr/bin/env bash
# The main demo: a local Muster cluster (controller + 2 node agents with 4 fake GPUs each) in a
# temporary directory, a small workload submitted with the Slurm commands, squeue/sinfo along the
# way, the jobs' output, and the cluster stopped again (no process left behind).
#   examples/demo.sh [BUILD_DIR]     (default build/release)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/build/release}" && pwd)
export PATH="$bin:$PATH"
dir=$(mktemp -d /tmp/muster-demo.XXXXXX)
chmod 755 "$dir"
export MUSTER_CONF="$dir/cluster/muster.yaml"
cleanup() { muster down --dir "$dir/cluster" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

run muster up --dir "$dir/cluster" --nodes 2 --gpus-per-node 4
cd "$dir"
run sinfo
say "sbatch: a 2-node x 4-GPU gang (srun on both nodes), a 2-GPU job, a CPU job, one too big to ever run"
cat > gang.sh <<'SCRIPT'
#!/bin/bash
#SBATCH -J gang -N 2 --gres=gpu:4 -t 5
echo "batch host $SLURMD_NODENAME: SLURM_JOB_NODELIST=$SLURM_JOB_NODELIST SLURM_NNODES=$SLURM_NNODES"
if srun --help >/dev/null 2>&1; then
  srun -l bash -c 'echo "task $SLURM_PROCID on $SLURMD_NODENAME sees CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"'
fi
sleep 2
SCRIPT
sbatch gang.sh
sbatch -J pair --gres=gpu:2 --wrap 'echo "pair on $SLURMD_NODENAME: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; sleep 1'
sbatch -J cpu -c 2 --wrap 'echo "cpu job $SLURM_JOB_ID on $SLURMD_NODENAME"'
sbatch -J huge --gres=gpu:16 --wrap true || true
run squeue
sleep 1
run squeue -l
for i in $(seq 1 100); do
  [ -z "$(squeue -h)" ] && break
  sleep 0.2
done
run squeue -t all
run scontrol show job 1
say "job output files"
for f in slurm-*.out; do echo "== $f"; cat "$f"; done
run sinfo -N -l
