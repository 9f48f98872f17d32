#!/usr/bin/env bash
# How fast `muster sim philly` replays the whole Philly trace (82,247 jobs, Muster's default
# policy; issue 5, docs/simulator.md), with two builds of the same source run in turn:
#   release  the release preset (what the README builds);
#   pgo      the same compiler flags plus GCC's profile-guided optimization: an instrumented
#            build replays the first 20,000 jobs of the trace (the training run), and the
#            optimized build is compiled from the profile it wrote (build/pgo).
# The two must decide alike: the script fails unless their JSON summaries agree in every field
# but the wall time. Writes bench/results/philly_speed.json.
# Usage: bench/philly_speed.sh [ROUNDS]   (default 2; both builds take about 25 minutes on 2 cores,
#                                         each round about a minute)
# Environment: MUSTER_TRACES (default ../shared/data/traces), MUSTER_SKIP_BUILD=1 (use the
# binaries already built).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: bench/philly_speed.sh [ROUNDS]   (ROUNDS: a positive number, not '$rounds')" >&2
  exit 2
fi
traces=${MUSTER_TRACES:-../shared/data/traces}
trace=$traces/philly/philly.csv
if [[ ! -f "$trace" ]]; then
  echo "bench/philly_speed.sh: no Philly trace at '$trace' (set MUSTER_TRACES)" >&2
  exit 1
fi
pgo=build/pgo
flags="-O2 -g"  # the release preset's (CMAKE_BUILD_TYPE=Release adds -O3 -DNDEBUG after them)
if [[ "${MUSTER_SKIP_BUILD:-0}" != 1 ]]; then
  echo "== release build" >&2
  { cmake --preset release && cmake --build --preset release --target muster; } >&2
  echo "== pgo: instrumented build" >&2
  cmake -S . -B "$pgo" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMUSTER_BUILD_TESTS=OFF \
    "-DCMAKE_CXX_FLAGS=$flags -fprofile-generate -fprofile-update=single" \
    -DCMAKE_EXE_LINKER_FLAGS=-fprofile-generate >&2
  cmake --build "$pgo" -j2 --target muster >&2
  find "$pgo" -name '*.gcda' -delete  # a profile of this source only
  echo "== pgo: training run (the first 20,000 jobs)" >&2
  "$pgo/muster" sim philly --trace "$trace" --policy muster --slice 20000 >&2
  echo "== pgo: optimized build" >&2
  cmake -S . -B "$pgo" -DCMAKE_EXE_LINKER_FLAGS= \
    "-DCMAKE_CXX_FLAGS=$flags -fprofile-use -fprofile-partial-training -Wno-missing-profile" >&2
  cmake --build "$pgo" -j2 --target muster >&2
fi
for b in build/release "$pgo"; do
  if [[ ! -x "$b/muster" ]]; then
    echo "bench/philly_speed.sh: $b/muster is not built (run without MUSTER_SKIP_BUILD)" >&2
    exit 1
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 1; r <= rounds; r++)); do
  for b in release pgo; do
    dir=build/release
    [[ $b == pgo ]] && dir=$pgo
    echo "== round $r of $rounds: $b" >&2
    "$dir/muster" sim philly --trace "$trace" --policy muster --json "$tmp/$b-$r.json" >&2
  done
done
mkdir -p bench/results
python3 - "$tmp" "$rounds" <<'PY'
import datetime, json, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
walls = {"release": [], "pgo": []}
first = None
for r in range(1, rounds + 1):
    for b in ("release", "pgo"):
        with open(f"{tmp}/{b}-{r}.json") as f:
            s = json.load(f)
        m = s["policies"]["muster"]
        walls[b].append(round(m.pop("wall_s"), 2))
        if first is None:
            first = s
        elif s != first:
            sys.exit(f"bench/philly_speed.sh: {b} (round {r}) decided otherwise than release (round 1)")
m = first["policies"]["muster"]
out = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "jobs": first["jobs"],
    "avg_jct_s": m["avg_jct_s"],
    "preemptions": m["preemptions"],
    "scheduling_passes": m["scheduling_passes"],
    "wall_s": walls,
    "pgo_over_release": [round(p / r, 3) for p, r in zip(walls["pgo"], walls["release"])],
}
with open("bench/results/philly_speed.json", "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
print(f"whole Philly trace, {out['jobs']} jobs: avg JCT {m['avg_jct_s'] / 3600:.2f} h, "
      f"{m['preemptions']} preemptions, {m['scheduling_passes']} passes (the same in every run)")
for r in range(rounds):
    print(f"round {r + 1}: release {walls['release'][r]:.1f} s, pgo {walls['pgo'][r]:.1f} s "
          f"({out['pgo_over_release'][r]:.2f}x)")
PY
