#!/usr/bin/env bash
# scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_FLAG...]: fuzzes one parser for SECONDS with libFuzzer under
# AddressSanitizer + UndefinedBehaviorSanitizer (tests/fuzz/README.md lists the targets).
# Builds build-fuzz/ with clang-14 the first time (only the target and what it links), starts from the seed
# corpus tests/fuzz/corpus/TARGET/ and writes what it finds to build-fuzz/findings/TARGET/ (new inputs in
# corpus/, crashes, leaks and timeouts as crash-*, leak-*, timeout-*): the seed corpus is never modified.
# `scripts/fuzz.sh list` prints the targets. FUZZ_BUILD_DIR (default build-fuzz) and FUZZ_OPT (default
# "-O1 -g1") pick another build: CI's smoke run builds build-fuzz-smoke/ at -O0, which compiles in less than
# half the time and runs its one second per target just as well.
set -euo pipefail
cd "$(dirname "$0")/.."
targets="trace_philly trace_gavel trace_tiresias trace_muri trace_alibaba_openb trace_alibaba_pai2020 trace_helios
trace_acme trace_csv cluster profiles run_config sweep_spec pipe_reply validate"
if [ "${1:-}" = list ]; then
  echo $targets | tr ' ' '\n'
  exit 0
fi
if [ $# -lt 2 ] || ! echo $targets | tr ' ' '\n' | grep -qx "$1"; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_FLAG...] (TARGET: scripts/fuzz.sh list)" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
jobs=${FUZZ_BUILD_JOBS:-2}
dir=${FUZZ_BUILD_DIR:-build-fuzz}
opt=${FUZZ_OPT:--O1 -g1}

if [ ! -f "$dir"/build.ninja ]; then
  # -O1 -g1: libFuzzer's usual optimisation, with line tables for the sanitizers' reports. Warnings are not
  # errors here: the warning set is GCC's, which the default build checks.
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="$opt" -DDLSIM_FUZZ=ON -DDLSIM_WERROR=OFF -DDLSIM_BENCHMARKS=OFF \
    -DCMAKE_UNITY_BUILD=ON >/dev/null
fi
cmake --build "$dir" -j "$jobs" --target "fuzz_$target"

out=$dir/findings/$target
mkdir -p "$out/corpus"
# -timeout: an input that takes 10 s is a hang; -rss_limit_mb: 2 GB for one input is a runaway allocation.
# The first folder receives the new inputs; the seed corpus is read only.
./"$dir"/tests/fuzz/"fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$out/" "$@" "$out/corpus" "tests/fuzz/corpus/$target"
