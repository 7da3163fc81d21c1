#!/usr/bin/env bash
# Generates the job pool a Gavel reference experiment draws from (its sweep.json names "pool.csv"; the
# description says which generator command), unless it exists: the pool is regenerated, never committed.
#   usage: gavel_pool.sh DLSIM EXPERIMENT_DIR
set -euo pipefail
dlsim=$1 dir=$2
grep -q '"trace": "pool.csv"' "$dir/sweep.json" || exit 0
[ -s "$dir/pool.csv" ] && exit 0
multi=()
grep -q -- '--multi-gpu' "$dir/sweep.json" && multi=(--multi-gpu)
"$dlsim" trace generate --gavel-paper "${multi[@]}" --jobs 100000 --rate 1 --seed 0 --out "$dir/pool.csv.tmp"
mv "$dir/pool.csv.tmp" "$dir/pool.csv"
