#!/usr/bin/env bash
# Installs dlsim's Debian 12 packages, builds dlsim (release), and runs the bundled default:
# FIFO over a synthetic Gavel-mix trace on a 108-GPU V100/P100/K80 cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

# slurm-wlm and munge: the Slurm test (tests/scripts/test_slurm_sweep.sh) starts a private Slurm of its
# own from them; it skips where they are missing. clang and libfuzzer-14-dev: the fuzz targets'
# build (tests/fuzz/README.md); dlsim itself builds with GCC. chromium: the browser test of `dlsim report`
# (headless, tests/sim/app/report/test_report_browser.py).
packages=(build-essential cmake ninja-build git pkg-config
          libboost-graph-dev libboost-program-options-dev nlohmann-json3-dev libfmt-dev catch2
          libglpk-dev libssl-dev libbenchmark-dev python3-matplotlib pybind11-dev python3-dev
          slurm-wlm munge clang libfuzzer-14-dev chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  # apt does not start the services of the packages it installs (the system's own munged, slurmctld and
  # slurmd): the Slurm test runs its own daemons, and a container has no init to run these.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d > /dev/null
    $sudo chmod 755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  rc=0
  { $sudo apt-get update -qq &&
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } || rc=$?
  [ $made_policy = 0 ] || $sudo rm -f /usr/sbin/policy-rc.d
  [ $rc = 0 ] || exit $rc
fi

# A unity build (8 files a unit) parses the shared headers once per unit, not once per file.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON
# As many compile jobs as cores: ninja's default (cores + 2) oversubscribes a 2-core machine and builds slower.
cmake --build build -j "$(nproc)"
./build/dlsim run
