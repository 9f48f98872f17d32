#!/usr/bin/env bash
# The Slurm compatibility check: runs compat/cases.sh against the live Slurm peer and against a
# local Muster cluster, masks what differs legitimately (compat/mask.py) and diffs the two.
#   compat/compare.sh [BUILD_DIR]      run both, then compare (about 5 minutes)
#   compat/compare.sh --no-run         compare the raw outputs of the last run again
# Writes compat/results/{slurm,muster}/ (masked outputs), compat/results/diff.txt and
# compat/results/summary.md, and prints "N of M commands differ". The deliberate differences are
# listed, with reasons, in docs/slurm-compatibility.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
res=$here/results
raw=${COMPAT_RAW:-/tmp/muster-compat-raw}
if [[ "${1:-}" != "--no-run" ]]; then
  "$here/run.sh" slurm "$raw/slurm"
  "$here/run.sh" muster "$raw/muster" "${1:-}"
fi
rm -rf "$res/slurm" "$res/muster"
python3 "$here/mask.py" "$raw/slurm" "$res/slurm" "$here/cases.sh"
python3 "$here/mask.py" "$raw/muster" "$res/muster" "$here/cases.sh"
: >"$res/diff.txt"
same=0 differ=0 rows=""
for name in $(sed -n 's/^c \([^ ]*\).*/\1/p' "$here/cases.sh"); do
  if cmp -s "$res/slurm/$name.txt" "$res/muster/$name.txt"; then
    same=$((same + 1)); rows+="| $name | same |"$'\n'
  else
    differ=$((differ + 1)); rows+="| $name | differs |"$'\n'
    diff -u --label "slurm/$name" --label "muster/$name" "$res/slurm/$name.txt" "$res/muster/$name.txt" >>"$res/diff.txt" || true
  fi
done
total=$((same + differ))
{
  echo "# Slurm compatibility check"
  echo
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ) by compat/compare.sh: $total commands, $same the same after masking, $differ differ."
  echo "Slurm: $(sinfo -V 2>/dev/null || echo '?') (../shared/peers/slurm); Muster: $(git -C "$here" rev-parse --short HEAD)."
  echo
  echo "| command | result |"
  echo "|---|---|"
  printf '%s' "$rows"
} >"$res/summary.md"
echo "$differ of $total commands differ (compat/results/summary.md, compat/results/diff.txt)"
