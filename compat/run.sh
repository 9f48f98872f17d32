#!/usr/bin/env bash
# Runs the commands of compat/cases.sh against one target and writes one file per command.
#   compat/run.sh slurm  OUTDIR                # the live Slurm peer (../shared/peers/slurm, started fresh)
#   compat/run.sh muster OUTDIR [BUILD_DIR]    # a local Muster cluster from compat/slurm.conf
# Each OUTDIR/NAME.txt holds "$ COMMAND", what it printed (stdout and stderr together) and
# "[exit N]", raw; compat/mask.py masks ids, times and host names before compare.sh diffs them.
# Both clusters are the same: 4 nodes n1-n4 with 16 CPUs, 64000 MB and 8 GPUs each, partitions gpu
# (default, all nodes) and debug (n1, 30 minutes), job ids from 50000.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
target=${1:?usage: run.sh slurm|muster OUTDIR [BUILD_DIR]}
out=$(mkdir -p "${2:?usage: run.sh slurm|muster OUTDIR [BUILD_DIR]}" && cd "$2" && pwd)
build=$(cd "${3:-$root/build/release}" 2>/dev/null && pwd || true)
rm -f "$out"/*.txt
W=$(mktemp -d /tmp/compat-work.XXXXXX)
chmod 755 "$W"
export W

case "$target" in
  slurm)
    peer_dir=${PEER_SCRIPTS:-$root/../shared/peers/slurm}
    export PEER=${PEER:-/tmp/slurm-peer}
    WITH_RESTD=1 "$peer_dir/setup.sh" >"$out/.setup.log" 2>&1
    export REST=http://127.0.0.1:16880  # the peer's slurmrestd (rest_auth/jwt)
    export SLURM_CONF=$PEER/etc/slurm.conf
    echo "FirstJobId=50000" >>"$SLURM_CONF"
    scontrol reconfigure
    sleep 1
    stop() { "$peer_dir/setup.sh" stop >/dev/null 2>&1 || true; rm -rf "$W"; }
    ;;
  muster)
    [[ -x "$build/muster" ]] || { echo "run.sh: no muster binary in '$build' (build it first)" >&2; exit 2; }
    # Only Muster's commands: a Slurm command Muster lacks must fail here, not reach an installed
    # Slurm (the peer's packages are on this machine).
    mkdir -p "$W/bin"
    for cmd in muster sbatch srun salloc squeue sinfo scancel sacct scontrol sprio sshare sacctmgr sattach sstat sdiag sreport sbcast strigger; do
      if [[ -e "$build/$cmd" ]]; then
        ln -s "$build/$cmd" "$W/bin/$cmd"
      else
        printf '#!/bin/sh\necho "%s: command not found (not provided by Muster)" >&2\nexit 127\n' "$cmd" >"$W/bin/$cmd"
        chmod +x "$W/bin/$cmd"
      fi
    done
    export PATH="$W/bin:$PATH"
    D=$W/cluster
    export MUSTER_CONF=$D/muster.yaml
    export REST=http://127.0.0.1:16881  # musterctld's REST listener (controller.rest_listen)
    muster up --cluster "$here/slurm.conf" --dir "$D" --first-job-id 50000 --rest 127.0.0.1:16881 >"$out/.setup.log" 2>&1
    stop() { muster down --dir "$D" >/dev/null 2>&1 || true; rm -rf "$W"; }
    ;;
  *) echo "run.sh: unknown target '$target' (slurm or muster)" >&2; exit 2 ;;
esac
trap stop EXIT

jsonkeys() { python3 "$here/jsonkeys.py"; }
# inbatch 'COMMANDS' [SBATCH OPTIONS]: runs them as a one-node batch job, waits for it, prints its
# output (srun's options tested inside an allocation, where no scheduling pass is awaited first).
inbatch() { local f; f=$(mktemp -p "$W" inbatch.XXXXXX); sbatch --wait -N1 "${@:2}" -o "$f" --wrap "$1" >/dev/null; cat "$f"; }
# rest METHOD PATH [rest.py options]: a slurmrestd request as root with a JWT from `scontrol token`
# (compat/rest.py prints the status and the masked answer).
rest() { python3 "$here/rest.py" "$@"; }
RTOK=$(scontrol token lifespan=3600 | sed -n "s/^SLURM_JWT=//p" || true)
export RTOK REST
export -f jsonkeys inbatch rest
export here

# c NAME COMMAND: run COMMAND in $W, record it.
n=0
c() {
  local name=$1 cmd=$2 rc
  n=$((n + 1))
  printf '\r[%s] %2d %-28s' "$target" "$n" "$name" >&2
  {
    echo "\$ $cmd"
    set +e
    (cd "$W" && timeout 60 bash -c "$cmd" </dev/null 2>&1)
    rc=$?
    set -e
    echo "[exit $rc]"
  } >"$out/$name.txt"
}
# settle: wait (at most 90 s) until no job runs and none waits for resources.
settle() {
  local i
  for i in $(seq 1 180); do
    [[ -z "$(squeue -h -t R,CG,CF -o %i 2>/dev/null)" && -z "$(squeue -h -t PD -o '%i %r' 2>/dev/null | grep -v -e JobHeld -e Dependency -e BeginTime -e PartitionConfig)" ]] && return 0
    sleep 0.5
  done
  echo "run.sh: jobs still running or waiting after 90 s:" >&2
  squeue -h -o '%i %j %T %r' >&2 || true
}

python3 - "$out/.vars.json" <<PY
import json, socket, sys
json.dump({"work": "$W", "cluster_dir": "${D:-}", "peer": "${PEER:-}", "build": "${build:-}",
           "host": socket.gethostname(), "host_short": socket.gethostname().split(".")[0]},
          open(sys.argv[1], "w"))
PY
cd "$W"
J1=$(sbatch --parsable -J gpujob -w n1 --gres=gpu:8 -n4 -t 10 -o "$W/cap_%j.out" \
       --wrap 'env | sort; echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; sleep 25')
J2=$(sbatch --parsable -J cpujob -N2 -n2 -o /dev/null --wrap 'sleep 25')
J3=$(sbatch --parsable -J waits4gpu -w n1 --gres=gpu:4 -o /dev/null --wrap 'true')
J4=$(sbatch --parsable -J held -H -o /dev/null --wrap 'true')
J1=${J1%%;*} J2=${J2%%;*} J3=${J3%%;*} J4=${J4%%;*}
export J1 J2 J3 J4
for i in $(seq 1 60); do
  [[ "$(squeue -h -j "$J1,$J2" -o %T 2>/dev/null | sort -u)" == RUNNING ]] && break
  sleep 0.5
done
# shellcheck source=cases.sh
. "$here/cases.sh"
echo >&2
