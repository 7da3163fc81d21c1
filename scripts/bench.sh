#!/usr/bin/env bash
# The benchmarks at the full sizes the README quotes (scripts/test.sh runs them
# smaller): 1M jobs on 1,024 GPUs, the micro-benchmarks, the trace readers on the public files, and a
# 100-run sweep of 10,000-job runs, and 100,000 Philly-sized jobs on a 10,240-GPU fat tree under the
# network model (consolidated placement, then random placement to load the fabric), and 1,000,000
# philly.csv-shaped jobs on 4,096 GPUs at 90% load under tiresias, las and srtf, and the Gavel allocation LPs
# over 2,000 active jobs on 3 x 36 GPUs for 100 rounds, the in-process Python FIFO and the pipe protocol
# (the Python FIFO over the pipe) against the native fifo on 100,000 jobs, the report of a 1,000,000-job run in
# headless Chromium; and the long statistical test
# cases (CTest's `statistical`, label slow), which scripts/test.sh leaves out. Expects scripts/setup.sh to
# have built ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
./build/tests/bench/bench_fifo_million
./build/tests/bench/bench_micro --benchmark_min_time=0.2
./build/tests/bench/bench_readers
./build/tests/bench/bench_sweep build/bench-sweep 10000 2>/dev/null
./build/tests/bench/bench_network 100000 || [ $? -eq 77 ]
./build/tests/bench/bench_network 100000 none,duty,maxmin 0.75 random || [ $? -eq 77 ]
./build/tests/bench/bench_policies 1000000 4096 tiresias,las,srtf || [ $? -eq 77 ]
./build/tests/bench/bench_lp 2000 100
./build/tests/bench/bench_pipe 100000
./build/tests/bench/bench_python_policy 100000
# dlsim report on 1,000,000 jobs with the event log, then headless Chromium until the Gantt is drawn.
/usr/bin/python3 tests/bench/bench_report.py --dlsim build/dlsim --work build/bench-report || [ $? -eq 77 ]
# The queueing formulas over up to 2M jobs ([slow][queueing]: M/M/1 at rho = 0.8 over 1M jobs, M/G/1 with
# hyperexponential sizes over 2M), each case's time printed: CTest's `statistical` test.
./build/tests/dlsim_tests "[slow][queueing]~[shared-data]" --warn NoTests --durations yes
