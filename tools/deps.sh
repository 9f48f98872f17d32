#!/usr/bin/env bash
# Installs the Debian 12 packages Muster needs to build and test (run as root, or via sudo).
set -euo pipefail
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
PKGS=(cmake ninja-build g++ clang libclang-rt-14-dev python3 pkg-config
      libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
      libyaml-cpp-dev libspdlog-dev libfmt-dev libsqlite3-dev libssl-dev libboost1.81-dev hyperfine
      libpq-dev postgresql-15
      chromium)  # chromium: the dashboard's test loads /ui headless (tests/dashboard_test.cc)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's PyTorch (CPU), without its recommends (GUI and codec libraries): the job-environment
# test runs torchrun and a gloo process group across the local cluster's nodes.
LEAN=(python3-torch)
lean_missing=()
for p in "${LEAN[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || lean_missing+=("$p")
done
if ((${#missing[@]} + ${#lean_missing[@]})); then
  $SUDO apt-get update -qq
fi
# postgresql-15 is there for the tests' private server (tools/pg-test-server.sh), which runs in a
# temporary directory: Debian's package must not create (or start) a system cluster of its own.
if [[ " ${missing[*]} " == *" postgresql-15 "* ]]; then
  $SUDO mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.d/muster-no-main.conf >/dev/null
fi
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
if ((${#lean_missing[@]})); then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${lean_missing[@]}"
fi
