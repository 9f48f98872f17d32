#!/usr/bin/env bash
# The whole test suite: unit, scenario, property and integration tests (real daemons on a local
# cluster) in the dev build, then the in-process tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer. Builds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
for preset in dev asan; do
  echo "== $preset build" >&2
  cmake --preset "$preset" -DMUSTER_BUILD_BENCH=OFF >/dev/null
  cmake --build --preset "$preset"
  echo "== $preset tests" >&2
  if [[ $preset == dev ]]; then
    ctest --preset "$preset"
  else
    ctest --preset "$preset" -L unit
  fi
done
