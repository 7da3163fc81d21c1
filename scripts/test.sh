#!/usr/bin/env bash
# Runs the whole test suite: the release build's tests (statistical ones included), the fast tests
# again under AddressSanitizer + UndefinedBehaviorSanitizer, then prints the benchmark figures.
# Expects scripts/setup.sh to have run (it installs the packages and makes ./build).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake --build build
ctest --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDLSIM_SANITIZE=ON -DDLSIM_BENCHMARKS=OFF
cmake --build build-asan
ctest --test-dir build-asan -LE slow --output-on-failure -j "$jobs"

# Speed is measured, not asserted: these print their figures.
./build/tests/bench/bench_fifo_million
./build/tests/bench/bench_micro --benchmark_min_time=0.2
./build/tests/bench/bench_readers
./build/tests/bench/bench_sweep build/bench-sweep 2>/dev/null
