#!/usr/bin/env bash
# Installs the Debian 12 packages Muster needs to build and test (run as root, or via sudo).
set -euo pipefail
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
PKGS=(cmake ninja-build g++ clang libclang-rt-14-dev lld python3 pkg-config
      libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
      libyaml-cpp-dev libspdlog-dev libfmt-dev libsqlite3-dev libssl-dev libboost1.81-dev hyperfine
      libpq-dev postgresql-15
      iproute2 curl  # the network-namespace tests (tests/netns_test.cc): ip netns, veth, bridge; curl pings
      chromium)  # chromium: the dashboard's test loads /ui headless (tests/dashboard_test.cc)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's PyTorch (CPU), without its recommends (GUI and codec libraries): the job-environment
# test runs torchrun and a gloo process group across the local cluster's nodes. Prometheus'
# server, without its recommends (node-exporter and its collectors): tests/prometheus_test.cc
# starts one of its own on loopback; the package's system service is not started.
LEAN=(python3-torch prometheus)
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
  # No package's service may start (prometheus' would listen on :9090): a policy-rc.d that denies
  # every start while apt runs, unless the system has one already (some container images do).
  policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    trap '$SUDO rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${lean_missing[@]}"
  if [[ -n "$policy" ]]; then $SUDO rm -f "$policy"; trap - EXIT; fi
  # Under systemd the unit was enabled for the next boot: the tests want no system Prometheus.
  if [[ " ${lean_missing[*]} " == *" prometheus "* && -d /run/systemd/system ]]; then
    $SUDO systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  fi
fi
