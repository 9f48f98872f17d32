#!/usr/bin/env bash
# Checks Muster on this host's real NVIDIA GPUs, as root: starts a local cluster on them
# (`muster up --gpus nvml`, cgroups on), runs jobs, and prints PASS, FAIL or SKIP for each check:
#   discovery   count, names, memory and UUIDs against nvidia-smi; the NVLink matrix against
#               `nvidia-smi topo -m`
#   cuda        a CUDA job on every GPU (torch when python3 has it, else nvidia-smi in the job)
#   fencing     a k-GPU job sees exactly its k GPUs; a GPU-less job sees none; a 1-GPU srun step
#               inside a 2-GPU job sees one
#   environment CUDA_VISIBLE_DEVICES, SLURM_JOB_GPUS and GPU_DEVICE_ORDINAL of a 1-GPU job, and
#               that the GPU it sees is the one SLURM_JOB_GPUS names
#   full node   a job holding every GPU of the node runs and sees them all
# Without an NVIDIA GPU it says SKIP and exits 0. Exit status 1 when a check failed.
#   tools/gpu-check.sh [--bin DIR] [--keep] [--nvml-library FILE]
#   --bin DIR: where muster, musterctld, musterd and muster-shepherd are (default: build/release, else build/dev,
#              else PATH); --keep: leave the cluster's directory (logs) behind; --nvml-library:
#              another NVML library (the tests run this script on the fake one, with a fake nvidia-smi).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=""
keep=0
nvml_library=""
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --nvml-library) nvml_library=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  for d in "$here/build/release" "$here/build/dev"; do
    if [ -x "$d/muster" ] && [ -x "$d/musterd" ] && [ -x "$d/musterctld" ]; then bin=$d; break; fi
  done
fi
[ -n "$bin" ] || bin=$(dirname "$(command -v muster 2>/dev/null || echo /nonexistent/muster)")
[ -d "$bin" ] && bin=$(cd "$bin" && pwd)
[ -z "$nvml_library" ] || nvml_library=$(realpath "$nvml_library")

passed=0 failed=0 skipped=0
result() {  # result PASS|FAIL|SKIP "check: what was seen"
  printf '%-4s  %s\n' "$1" "$2"
  case $1 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
}
summary() {
  echo "gpu-check: $passed passed, $failed failed, $skipped skipped"
}

if ! command -v nvidia-smi >/dev/null 2>&1; then
  result SKIP "all: no nvidia-smi here (no NVIDIA driver): nothing to check"
  summary
  exit 0
fi
if ! gpus_listed=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$gpus_listed"; then
  result SKIP "all: nvidia-smi -L lists no GPU ($(head -n1 <<<"$gpus_listed")): nothing to check"
  summary
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "gpu-check: run it as root (the cluster fences GPUs with cgroups)" >&2
  exit 2
fi
for p in muster musterd musterctld; do
  if [ ! -x "$bin/$p" ]; then
    echo "gpu-check: no $p in '$bin' (build with: cmake --preset release && cmake --build --preset release)" >&2
    exit 2
  fi
done
have_torch=0
if command -v python3 >/dev/null 2>&1 && python3 -c 'import torch' >/dev/null 2>&1; then have_torch=1; fi
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

dir=$(mktemp -d /tmp/muster-gpu-check.XXXXXX)
chmod 755 "$dir"
export PATH="$bin:$PATH" MUSTER_CONF="$dir/c/muster.yaml"
cleanup() {
  muster down --dir "$dir/c" >/dev/null 2>&1
  if [ $keep = 1 ]; then echo "gpu-check: the cluster's logs are in $dir/c/log"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
cd "$dir" || exit 2

echo "gpu-check: $(head -n1 <<<"$gpus_listed" | sed 's/ (UUID.*//') and $(($(wc -l <<<"$gpus_listed") - 1)) more;" \
  "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1); torch: $([ $have_torch = 1 ] && echo yes || echo no)"
if ! up=$(muster up --gpus nvml ${nvml_library:+--nvml-library "$nvml_library"} --nodes 1 --dir "$dir/c" 2>&1); then
  result FAIL "muster up --gpus nvml: $up"
  summary
  exit 1
fi
echo "gpu-check: $(head -n1 <<<"$up")"
if grep -q 'cgroup' "$dir/c/log/musterd-node1.log"; then
  echo "gpu-check: agent: $(grep -m1 'cgroup' "$dir/c/log/musterd-node1.log")"
fi

# ---- discovery -------------------------------------------------------------------------------
smi_csv=$(nvidia-smi --query-gpu=index,name,memory.total,uuid,mig.mode.current --format=csv,noheader,nounits)
n=$(wc -l <<<"$smi_csv")
node_json=$(muster scontrol --json show node node1 2>&1)
if [ $have_python = 0 ]; then
  result SKIP "discovery: no python3 to read 'scontrol --json show node'"
  seen_n=$n
else
  report=$(SMI="$smi_csv" NODE="$node_json" python3 - <<'PY'
import json, os, re
smi = [[f.strip() for f in l.split(',')] for l in os.environ['SMI'].splitlines() if l.strip()]
try:
    doc = json.loads(os.environ['NODE'])
except ValueError as e:
    print('FAIL discovery: scontrol --json show node: ' + os.environ['NODE'][:200]); raise SystemExit
nodes = doc.get('nodes', [doc]) if isinstance(doc, dict) else doc
node = nodes[0] if nodes else {}
node = node.get('node', node)
gpus = sorted(node.get('gpus', []), key=lambda g: g['index'])
if any(r[4] == 'Enabled' for r in smi):
    print('SKIP discovery: MIG is on (slices are compared by the MIG checks, not here)')
    print('COUNT %d' % len(gpus)); raise SystemExit
ok = len(gpus) == len(smi)
print(('PASS' if ok else 'FAIL') + ' discovery count: Muster %d GPUs, nvidia-smi %d' % (len(gpus), len(smi)))
print('COUNT %d' % len(gpus))
if not ok: raise SystemExit
bad = [(r[1], g['model']) for r, g in zip(smi, gpus)
       if g['model'].replace('_', ' ') not in r[1].lower() and g['model'].replace('_', '') not in r[1].lower().replace(' ', '')]
print(('FAIL' if bad else 'PASS') + ' discovery names: ' + (', '.join('%s is not "%s"' % b for b in bad) if bad else
      ', '.join(sorted(set('%s = %s' % (r[1], g['model']) for r, g in zip(smi, gpus))))))
bad = [(r[0], r[2], g['memory_mb']) for r, g in zip(smi, gpus) if abs(int(r[2]) - int(g['memory_mb'])) > max(1, int(r[2]) // 100)]
print(('FAIL' if bad else 'PASS') + ' discovery memory: ' + (', '.join('GPU %s: nvidia-smi %s MiB, Muster %s' % b for b in bad) if bad else
      ', '.join(sorted(set('%s MiB' % g['memory_mb'] for g in gpus)))))
bad = [(r[0], r[3], g['uuid']) for r, g in zip(smi, gpus) if r[3] != g['uuid']]
print(('FAIL' if bad else 'PASS') + ' discovery UUIDs: ' + (', '.join('GPU %s: nvidia-smi %s, Muster %s' % b for b in bad) if bad else
      'all %d in nvidia-smi\'s order' % len(gpus)))
PY
)
  seen_n=$(sed -n 's/^COUNT //p' <<<"$report")
  while IFS= read -r line; do
    case $line in PASS*|FAIL*|SKIP*) result "${line%% *}" "${line#* }" ;; esac
  done <<<"$report"
  # NVLink: nvidia-smi topo -m's NV<k> entries against Muster's link counts.
  if [ "$n" -lt 2 ]; then
    result SKIP "discovery NVLink: one GPU, no pair to compare"
  else
    topo=$(nvidia-smi topo -m 2>&1)
    verdict=$(TOPO="$topo" NODE="$node_json" python3 - <<'PY'
import json, os, re
doc = json.loads(os.environ['NODE'])
nodes = doc.get('nodes', [doc]) if isinstance(doc, dict) else doc
links = nodes[0].get('node', nodes[0]).get('links', [])
rows = {}
for l in os.environ['TOPO'].splitlines():
    m = re.match(r'^\s*GPU(\d+)\s+(.*)$', l)
    if m: rows[int(m.group(1))] = m.group(2).split()
bad = []
for a, cells in rows.items():
    for b in range(len(rows)):
        if b >= len(cells) or a == b: continue
        nv = re.match(r'NV(\d+)', cells[b])
        want = int(nv.group(1)) if nv else 0
        have = links[a][b] if a < len(links) and b < len(links[a]) else -1
        if (want > 0) != (have > 0) or (want > 0 and want != have):
            bad.append('GPU%d-GPU%d: topo %s, Muster %d' % (a, b, cells[b], have))
pairs = sum(1 for a in rows for b in range(len(rows)) if a < b)
print(('FAIL discovery NVLink: ' + '; '.join(bad[:8])) if bad else 'PASS discovery NVLink: %d pairs agree with nvidia-smi topo -m' % pairs)
PY
)
    result "${verdict%% *}" "${verdict#* }"
  fi
fi
[ -n "$seen_n" ] || seen_n=$n

# ---- jobs ------------------------------------------------------------------------------------
# Runs a command as a job step on the node (srun), with a time bound; its output.
run() { timeout 300 muster srun -t 5 "$@" 2>&1; }
# Submits a batch job (sbatch options after the name) and waits for it (5 minutes at most); its output.
batch() {
  local name=$1 id deadline
  shift
  id=$(muster sbatch --parsable -t 5 -o "$dir/$name.out" "$@" 2>&1) || { echo "sbatch: $id"; return; }
  deadline=$((SECONDS + 300))
  while [ -n "$(muster squeue -h -j "$id" -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 1; done
  cat "$dir/$name.out" 2>/dev/null
}
# The GPUs a job sees, as "count:uuid,uuid" (nvidia-smi in the job; its query fails with none).
see='n=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | grep -c GPU-); u=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | paste -sd,); echo "SEEN $n:$u"'
cuda_py='import torch; n = torch.cuda.device_count(); s = [float((torch.ones(1024, 1024, device=f"cuda:{i}") @ torch.ones(1024, 1024, device=f"cuda:{i}")).sum()) for i in range(n)]; print("TORCH", n, all(v == 1024.0 ** 3 for v in s))'

# cuda: one 1-GPU job per GPU, all at once: each runs a CUDA matmul, and together they cover every GPU.
all_uuids=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | sort | paste -sd,)
ids=()
for i in $(seq 1 "$seen_n"); do
  if [ $have_torch = 1 ]; then body="$see; python3 -c '$cuda_py'"; else body="$see"; fi
  id=$(muster sbatch --parsable -t 5 --gres=gpu:1 -o "$dir/cuda.%j.out" --wrap "$body" 2>&1) || { result FAIL "cuda: sbatch: $id"; break; }
  ids+=("$id")
done
deadline=$((SECONDS + 300))
while [ ${#ids[@]} -gt 0 ] && [ -n "$(muster squeue -h -j "$(IFS=,; echo "${ids[*]}")" -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do
  sleep 1
done
if [ ${#ids[@]} -gt 0 ]; then
  covered=$(cat "$dir"/cuda.*.out 2>/dev/null | sed -n 's/^SEEN 1://p' | sort | paste -sd,)
  torch_ok=$(cat "$dir"/cuda.*.out 2>/dev/null | grep -c '^TORCH 1 True')
  states=$(muster sacct -X -n -P -o State -j "$(IFS=,; echo "${ids[*]}")" 2>/dev/null | sort | uniq -c | xargs)
  if [ "$covered" = "$all_uuids" ] && { [ $have_torch = 0 ] || [ "$torch_ok" = "$seen_n" ]; }; then
    result PASS "cuda: $seen_n 1-GPU jobs covered every GPU once$([ $have_torch = 1 ] && echo ", each a torch matmul on its GPU") ($states)"
  else
    result FAIL "cuda: jobs saw '$covered' (want '$all_uuids'), torch right in $torch_ok of $seen_n ($states); outputs in $dir"
    keep=1
  fi
fi

# fencing: k GPUs seen by a k-GPU job.
for k in $(printf '%s\n' 1 2 "$seen_n" | sort -nu); do
  if [ "$k" -gt "$seen_n" ]; then continue; fi
  out=$(run --gres=gpu:"$k" sh -c "$see")
  got=$(sed -n 's/^SEEN \([0-9]*\):.*/\1/p' <<<"$out")
  label="fencing: a $k-GPU job"
  [ "$k" = "$seen_n" ] && label="full node: a job holding all $k GPUs"
  if [ "$got" = "$k" ]; then result PASS "$label sees $got"; else result FAIL "$label sees '${got:-?}': $(tail -n2 <<<"$out" | xargs)"; fi
  if [ $have_torch = 1 ]; then
    out=$(run --gres=gpu:"$k" python3 -c "$cuda_py")
    if grep -q "^TORCH $k True" <<<"$out"; then result PASS "$label: torch sees $k and computes on each"
    else result FAIL "$label: torch says '$(tail -n1 <<<"$out")'"; fi
  fi
done
out=$(run sh -c "$see; nvidia-smi -L 2>&1 | head -n1")
got=$(sed -n 's/^SEEN \([0-9]*\):.*/\1/p' <<<"$out")
if [ "$got" = 0 ]; then result PASS "fencing: a GPU-less job sees none ($(tail -n1 <<<"$out"))"; else result FAIL "fencing: a GPU-less job sees '${got:-?}': $out"; fi
if [ $have_torch = 1 ]; then
  out=$(run python3 -c 'import torch; print("TORCH", torch.cuda.device_count())')
  if grep -q '^TORCH 0' <<<"$out"; then result PASS "fencing: torch in a GPU-less job sees 0"; else result FAIL "fencing: torch in a GPU-less job: $(tail -n1 <<<"$out")"; fi
fi
if [ "$seen_n" -ge 2 ]; then
  out=$(batch step --gres=gpu:2 --wrap "muster srun -n1 --gres=gpu:1 sh -c '$see'; $see")
  seen=$(sed -n 's/^SEEN \([0-9]*\):.*/\1/p' <<<"$out" | paste -sd' ')
  if [ "$seen" = "1 2" ]; then result PASS "fencing: a 1-GPU step inside a 2-GPU job sees 1 (the job 2)"
  else result FAIL "fencing: step and job saw '$seen' (want '1 2'): $(tail -n3 <<<"$out" | xargs)"; fi
else
  result SKIP "fencing: a 1-GPU step in a 2-GPU job needs 2 GPUs"
fi

# environment: a 1-GPU batch job's variables (SLURM_JOB_GPUS is the batch job's, as in Slurm), and
# that the GPU it sees is the one SLURM_JOB_GPUS names.
out=$(batch env --gres=gpu:1 --wrap 'echo "ENV CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES SLURM_JOB_GPUS=$SLURM_JOB_GPUS GPU_DEVICE_ORDINAL=$GPU_DEVICE_ORDINAL"; '"$see")
env_line=$(grep '^ENV ' <<<"$out")
job_gpus=$(sed -n 's/.*SLURM_JOB_GPUS=\([0-9]*\) .*/\1/p' <<<"$env_line")
seen_uuid=$(sed -n 's/^SEEN 1://p' <<<"$out")
want_uuid=$(nvidia-smi --query-gpu=index,uuid --format=csv,noheader | awk -F', ' -v i="$job_gpus" '$1 == i {print $2}')
if grep -q 'CUDA_VISIBLE_DEVICES=0 SLURM_JOB_GPUS=[0-9][0-9]* GPU_DEVICE_ORDINAL=0$' <<<"$env_line" && [ -n "$seen_uuid" ] && [ "$seen_uuid" = "$want_uuid" ]; then
  result PASS "environment: ${env_line#ENV }; it sees GPU $job_gpus ($seen_uuid)"
else
  result FAIL "environment: '${env_line#ENV }', sees '$seen_uuid', GPU $job_gpus is '$want_uuid': $(tail -n2 <<<"$out" | xargs)"
fi

summary
[ $failed = 0 ]
