#!/usr/bin/env bash
# Re-runs one committed reference experiment's sweep into a scratch folder and compares its index
# byte for byte with the committed one.
#   usage: check_reference.sh DLSIM EXPERIMENT_DIR SCRATCH_DIR
# An input under ../shared/data that is missing fails the test, unless DLSIM_SKIP_SHARED_DATA=1: then
# it is skipped (exit 77), never passed.
set -euo pipefail
dlsim=$1 dir=$2 scratch=$3
if grep -q 'shared/data' "$dir/sweep.json"; then
  trace=$(cd "$dir" && realpath -m "$(sed -n 's/.*"trace": *"\([^"]*\)".*/\1/p' sweep.json)")
  if [ ! -e "$trace" ]; then
    if [ "${DLSIM_SKIP_SHARED_DATA:-}" = 1 ]; then echo "skipped: $trace is missing"; exit 77; fi
    echo "check_reference: $trace is missing (set DLSIM_SKIP_SHARED_DATA=1 to skip)" >&2; exit 1
  fi
fi
rm -rf "$scratch"
"$dlsim" sweep "$dir/sweep.json" --out "$scratch"
cmp "$scratch/index.csv" "$dir/index.csv"
