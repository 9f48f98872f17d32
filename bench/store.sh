#!/usr/bin/env bash
# The submit rate through the stores (bench/store_bench.cc): SQLite and PostgreSQL in the same
# run, on a private PostgreSQL server (tools/pg-test-server.sh, stopped at the end). Builds the
# release preset's store_bench, prints JSON (bench/results/store.json with --save).
set -euo pipefail
cd "$(dirname "$0")/.."
{
  cmake --preset release -DMUSTER_BUILD_TESTS=OFF
  cmake --build --preset release --target store_bench
} >&2
pg_dir=$(mktemp -d /tmp/muster-pg.XXXXXX)
trap 'bash tools/pg-test-server.sh stop "$pg_dir" || true; rm -rf "$pg_dir"' EXIT
url=$(bash tools/pg-test-server.sh start "$pg_dir")
out=$(./build/release/store_bench "$url")
echo "$out"
if [[ "${1:-}" == "--save" ]]; then
  python3 - "$out" <<'PY'
import json, sys, datetime, subprocess
rows = json.loads(sys.argv[1])
rows["date"] = datetime.date.today().isoformat()
rows["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
rows["cores"] = len(__import__("os").sched_getaffinity(0))
open("bench/results/store.json", "w").write(json.dumps(rows, indent=2) + "\n")
PY
fi
