#!/usr/bin/env bash
# The whole test suite: unit, scenario and property tests in the dev build, then again under
# AddressSanitizer + UndefinedBehaviorSanitizer. Builds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
for preset in dev asan; do
  echo "== $preset build" >&2
  cmake --preset "$preset" -DMUSTER_BUILD_BENCH=OFF >/dev/null
  cmake --build --preset "$preset"
  echo "== $preset tests" >&2
  ctest --preset "$preset"
done
