#!/usr/bin/env bash
# Outside check, not part of dlsim: the Gavel-compatible gavel-ftf run with every allocation solved by ECOS (the
# interior-point solver Gavel's cvxpy calls) on Gavel's cone program, instead of dlsim's LP and centre.
#   usage: bash scripts/ecos_ftf_check/run.sh RATE [SEED]     (single-GPU Fig. 8 stream; after scripts/setup.sh
#          and scripts/reference_experiment.sh gavel-continuous-single, which generates the job streams)
# Needs R with ECOSolveR and Matrix (Debian: r-cran-ecosolver r-cran-matrix). Builds a patched copy of the
# current commit in a git worktree (hook.patch: ShareLp::solve sends each FTF call's jobs to the solver
# through two FIFOs and takes its x), so the repository's own build is untouched. Prints the window's mean JCT.
set -euo pipefail
rate=${1:?usage: run.sh RATE [SEED]}; seed=${2:-0}
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
Rscript -e 'suppressMessages({library(ECOSolveR); library(Matrix)})' 2>/dev/null ||
  { echo "run.sh: needs R's ECOSolveR and Matrix (apt-get install r-cran-ecosolver r-cran-matrix)" >&2; exit 2; }
stream=$repo/results/reference/gavel-continuous-single/gavel_stream_seed$seed.csv
[ -e "$stream" ] || { echo "run.sh: $stream missing (bash scripts/reference_experiment.sh gavel-continuous-single)" >&2; exit 2; }
tree=${ECOS_CHECK_TREE:-/tmp/dlsim-ecos-check}
if [ ! -e "$tree/build/dlsim" ]; then
  git -C "$repo" worktree add --detach "$tree" HEAD
  git -C "$tree" apply "$here/hook.patch"
  cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DDLSIM_BENCHMARKS=OFF
  cmake --build "$tree/build" -j "$(nproc)" --target dlsim
fi
out=$(mktemp -d); mkfifo "$out/in" "$out/out"
Rscript "$here/ftf_ecos_server.R" "$out/in" "$out/out" "$out/solver.log" &
DLSIM_ECOS_IN=$out/in DLSIM_ECOS_OUT=$out/out "$tree/build/dlsim" run --compat gavel --trace "$stream" \
  --cluster "$repo/models/clusters/gavel_compat_108.json" --profiles "$repo/models/profiles/gavel.json" \
  --policy gavel-ftf --load-scale "$rate" --seed "$seed" --measure-jobs 4000:5000 --out "$out/result.json" 2>/dev/null |
  grep "JCT (h)"
wait
echo "ECOS exits (0 = optimal, 10 = close to optimal, < 0 = failed), count: $(awk '{print $3}' "$out/solver.log" | sort | uniq -c | tr '\n' ' ')"
echo "result and solver log: $out"
