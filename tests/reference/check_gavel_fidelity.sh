#!/usr/bin/env bash
# The Gavel-compatible mode's fidelity test on a reduced set of points: dlsim's Gavel-compatible mode (Gavel:
# Narayanan et al., OSDI 2020, github.com/stanford-futuredata/gavel), on Gavel's own seed-0
# job stream (dlsim trace generate --gavel-paper --gavel-streams --seed 0, scaled with load_scale), against
# the authors' numbers (../shared/data/gavel/reference/notebook_continuous_results.csv: mean JCT of jobs
# 4000-4999 of Gavel's seed-0 run). Each checked point must be within 10% of Gavel's below that policy's
# saturation load, and each saturation load (the lowest swept rate whose JCT exceeds 4x the JCT at the
# lowest) within one step of Gavel's over the same rates. Checked: single-GPU gavel-fifo and fifo-het at 2.0
# and 4.0 jobs/h with both saturation loads, gavel-las at 5.6; multi-GPU gavel-ftf at 2.6. The full sweeps
# are results/reference/gavel-continuous-{single,multi}.
#   usage: check_gavel_fidelity.sh DLSIM SOURCE_DIR SCRATCH_DIR
# The notebook file missing fails the test unless DLSIM_SKIP_SHARED_DATA=1 (then exit 77: skipped).
set -euo pipefail
dlsim=$1 src=$2 scratch=$3
notebook=${DLSIM_SHARED_DATA:-$src/../shared/data}/gavel/reference/notebook_continuous_results.csv
if [ ! -e "$notebook" ]; then
  if [ "${DLSIM_SKIP_SHARED_DATA:-}" = 1 ]; then echo "skipped: $notebook is missing"; exit 77; fi
  echo "check_gavel_fidelity: $notebook is missing (set DLSIM_SKIP_SHARED_DATA=1 to skip)" >&2; exit 1
fi
rm -rf "$scratch"
mkdir -p "$scratch"
"$dlsim" trace generate --gavel-paper --gavel-streams --seed 0 --rate 1 --jobs 20000 --out "$scratch/single.csv"
"$dlsim" trace generate --gavel-paper --multi-gpu --gavel-streams --seed 0 --rate 1 --jobs 20000 \
  --out "$scratch/multi.csv"
sweep() {  # name trace policies rates
  local name=$1 trace=$2 policies=$3 rates=$4
  cat > "$scratch/$name.json" <<SPEC
{"name": "$name",
 "base": {"trace": "$scratch/$trace.csv", "cluster": "$src/models/clusters/gavel_compat_108.json",
          "profiles": "$src/models/profiles/gavel.json", "compat": "gavel", "measure_jobs": "4000:5000",
          "seed": 0},
 "grid": {"policy": [$policies], "load_scale": [$rates]}}
SPEC
  "$dlsim" sweep "$scratch/$name.json" --out "$scratch/$name" --jobs 2 > /dev/null
}
status=0
sweep fifo single '"gavel-fifo", "fifo-het"' '0.4, 2.0, 4.0, 4.4, 4.8, 5.2'
python3 "$src/scripts/compare_gavel.py" "$scratch/fifo/index.json" --notebook "$notebook" \
  --check gavel-fifo:2.0,4.0 --check fifo-het:2.0,4.0 || status=1
sweep las single '"gavel-las"' '0.4, 5.6'
python3 "$src/scripts/compare_gavel.py" "$scratch/las/index.json" --notebook "$notebook" \
  --check gavel-las:5.6 || status=1
sweep ftf multi '"gavel-ftf"' '0.2, 2.6'
python3 "$src/scripts/compare_gavel.py" "$scratch/ftf/index.json" --notebook "$notebook" \
  --trace-kind continuous-multiple --check gavel-ftf:2.6 || status=1
# Not checked: gavel-ftf-agnostic on multi-GPU jobs at 2.6 jobs/h, which dlsim does not reproduce on seed 0
# (49.1 h against Gavel's 64.4; results/reference/gavel-continuous-multi/README.md).
exit $status
