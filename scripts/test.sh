#!/usr/bin/env bash
# Runs the whole test suite: the release build's tests, the fast tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then prints the benchmark figures.
# Expects scripts/setup.sh to have run (it installs the packages and makes ./build).
# At the end (also after a failure) it prints each step's wall time as a table.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# step NAME COMMAND [ARG...]: runs the command, recording its wall time under NAME for the table.
step_names=()
step_seconds=()
current_step=
step() {
  local name=$1
  shift
  current_step=$name
  current_start=$EPOCHREALTIME
  "$@"
  step_names+=("$name")
  step_seconds+=("$(seconds_since "$current_start")")
  current_step=
}
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
print_times() {
  if [ -n "$current_step" ]; then
    step_names+=("$current_step (failed)")
    step_seconds+=("$(seconds_since "$current_start")")
  fi
  local i total=0
  echo
  printf '%-30s %8s\n' step seconds
  for i in "${!step_names[@]}"; do
    printf '%-30s %8s\n' "${step_names[$i]}" "${step_seconds[$i]}"
    total=$(awk -v a="$total" -v b="${step_seconds[$i]}" 'BEGIN { print a + b }')
  done
  printf '%-30s %8.1f\n' total "$total"
}
trap print_times EXIT

step "release build" cmake --build build -j "$jobs"
# Every release test but label slow: that is CTest's `statistical`, the queueing formulas over up to 2M jobs
# (43 s), whose formulas `statistical-short` checks here over 200k-1M jobs with tolerances of at least
# 3 standard errors (7 s). scripts/bench.sh runs the slow ones (or: ctest --test-dir build -L slow).
step "release ctest" ctest --test-dir build -LE slow --output-on-failure -j "$jobs"

# -g1: line tables for the sanitizers' reports, without the full debug info that costs a sixth of the build.
# A unity build, as in setup.sh: it builds in about three quarters of the time.
sanitizer_build() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DDLSIM_SANITIZE=ON \
    -DDLSIM_BENCHMARKS=OFF -DCMAKE_UNITY_BUILD=ON
  cmake --build build-asan -j "$jobs"
}
step "sanitizer configure+build" sanitizer_build
# The sanitizers check the C++ on the fast tests; the end-to-end runs over the public data (label
# shared-data: 10,000-job Philly replays, in-process and over the pipe) and the long runs (label
# release-only: the statistical cases at CI's sizes, the end-to-end sweeps, las.py's bundled-trace run) ran
# in the release build above.
step "sanitizer ctest" ctest --test-dir build-asan -LE "slow|release-only|shared-data" --output-on-failure -j "$jobs"

# Fuzzing smoke run (tests/fuzz/README.md): every libFuzzer target for 1 s from its seed corpus, in the clang
# build build-fuzz-smoke/ at -O0 (only what the targets link; scripts/fuzz.sh's own build-fuzz/ stays at
# -O1 for real fuzzing). Any crash, leak, hang or sanitizer report fails the step.
fuzz_smoke() {
  local t
  for t in $(scripts/fuzz.sh list); do
    mkdir -p build-fuzz-smoke/findings/"$t"
    if ! FUZZ_BUILD_DIR=build-fuzz-smoke FUZZ_OPT="-O0 -g0" FUZZ_BUILD_JOBS=$jobs scripts/fuzz.sh "$t" 1 \
      >build-fuzz-smoke/findings/"$t"/smoke.log 2>&1; then
      tail -n 40 build-fuzz-smoke/findings/"$t"/smoke.log
      return 1
    fi
  done
}
step "fuzz build+smoke" fuzz_smoke

# Speed is measured, not asserted: these print their figures, at reduced sizes that take seconds
# (scripts/bench.sh runs the full sizes the README quotes).
benchmarks() {
  ./build/tests/bench/bench_fifo_million 100000
  ./build/tests/bench/bench_micro --benchmark_min_time=0.05
  ./build/tests/bench/bench_readers
  ./build/tests/bench/bench_sweep build/bench-sweep 1000 2>/dev/null
  # Exits 77 (skipped, message printed) when ../shared/data's pollux/philly.csv is missing.
  ./build/tests/bench/bench_network 5000 || [ $? -eq 77 ]
  # 20,000 philly.csv-shaped jobs on 128 GPUs loaded to 90% (skipped, exit 77, without the shared data).
  ./build/tests/bench/bench_policies 20000 128 || [ $? -eq 77 ]
  # The persistent allocation LP: 300 jobs, 10 rounds per Gavel objective (bench_lp's default is 2,000 jobs).
  ./build/tests/bench/bench_lp 300 10
  # The pipe protocol: the Python FIFO over the pipe against the native fifo, 5,000 jobs (bench_pipe's
  # default is 100,000).
  ./build/tests/bench/bench_pipe 5000
  # The in-process Python FIFO against the native fifo (bench_python_policy's default is 100,000 jobs).
  ./build/tests/bench/bench_python_policy 10000
  # dlsim report on 100,000 jobs, then headless Chromium until the Gantt is drawn (skipped without chromium).
  /usr/bin/python3 tests/bench/bench_report.py --dlsim build/dlsim --jobs 100000 --work build/bench-report || [ $? -eq 77 ]
}
step benchmarks benchmarks
