#!/usr/bin/env bash
# Generates the traces a Gavel reference experiment's sweep.json names, unless they exist; they are
# regenerated, never committed (.gitignore):
#   gavel_stream_seedS.csv  Gavel's own job stream of its run with seed S (--gavel-streams: its Python random
#                           streams), at 1 job/h; the sweep scales it to each rate with load_scale
#   pool.csv                a pool of 100,000 paper-mode jobs that a sweep resamples (gavel-ftf-rho)
# --multi-gpu when the spec's description says so (Gavel's -m: 1/2/4/8 GPUs).
#   usage: gavel_traces.sh DLSIM EXPERIMENT_DIR
set -euo pipefail
dlsim=$1 dir=$2
multi=()
grep -q -- '--multi-gpu' "$dir/sweep.json" && multi=(--multi-gpu)
make() {  # file, generator arguments...
  local file=$1; shift
  [ -s "$dir/$file" ] && return 0
  "$dlsim" trace generate --gavel-paper "${multi[@]}" "$@" --rate 1 --out "$dir/$file.tmp"
  mv "$dir/$file.tmp" "$dir/$file"
}
if grep -q '"trace": "pool.csv"' "$dir/sweep.json"; then make pool.csv --jobs 100000 --seed 0; fi
# 20,000 jobs: Gavel's generator never stops (simulate() with jobs_to_complete generates jobs until the
# window has finished), so the stream must outlast the window at every swept rate; with 7,000 the arrivals
# ran out before jobs 4000-4999 finished in the saturated runs (compare_gavel.py reports any such run).
for seed in $(grep -o '"gavel_stream_seed[0-9]*\.csv"' "$dir/sweep.json" | tr -dc '0-9\n' | sort -un); do
  make "gavel_stream_seed$seed.csv" --gavel-streams --jobs 20000 --seed "$seed"
done
