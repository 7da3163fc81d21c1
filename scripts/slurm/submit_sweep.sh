#!/usr/bin/env bash
# Submits a dlsim sweep to Slurm: a job array of N shards (scripts/slurm/sweep.sbatch), then a merge job
# that builds RESULTS_DIR/index.csv and index.json once every shard has ended, failed ones included.
#
#   scripts/slurm/submit_sweep.sh SPEC.json RESULTS_DIR N [sbatch options for the array...]
#   e.g. scripts/slurm/submit_sweep.sh sweeps/load.json /shared/results/load 8 --cpus-per-task=4 --time=2:00:00
#
# Prints the two job ids ("array <id>" and "merge <id>"). Logs go to RESULTS_DIR/logs/ (sweep-<array id>_<task>.out,
# merge-<id>.out). DLSIM picks the binary (default: this repository's build/dlsim); DLSIM_JOBS the runs per task
# (default: the array's --cpus-per-task). sbatch's own variables (SBATCH_PARTITION, SBATCH_ACCOUNT, ...) apply to
# both jobs. RESULTS_DIR and the binary must be on a file system every node sees.
set -euo pipefail

die() { echo "submit_sweep.sh: $*" >&2; exit 2; }

[ $# -ge 3 ] || die "usage: submit_sweep.sh SPEC.json RESULTS_DIR N [sbatch options for the array...]"
spec=$1
out=$2
n=$3
shift 3
[ -f "$spec" ] || die "SPEC $spec: no such file"
[[ $n =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer (the number of array tasks), got '$n'"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dlsim=${DLSIM:-$here/../../build/dlsim}
[ -x "$dlsim" ] || die "no dlsim binary at $dlsim (build it, or set DLSIM)"
command -v sbatch >/dev/null || die "no sbatch on PATH: run this where Slurm's commands are installed"

# Absolute paths: the jobs may start in another directory, and the logs folder must exist before they do.
mkdir -p "$out/logs"
spec=$(realpath "$spec")
out=$(realpath "$out")
dlsim=$(realpath "$dlsim")

array=$(sbatch --parsable --array="0-$((n - 1))" --output="$out/logs/sweep-%A_%a.out" \
               --export="ALL,DLSIM=$dlsim" "$@" "$here/sweep.sbatch" "$spec" "$out")
array=${array%%;*}   # --parsable prints "id" or "id;cluster"
merge=$(sbatch --parsable --dependency="afterany:$array" --job-name=dlsim-sweep-merge \
               --output="$out/logs/merge-%j.out" \
               --wrap="exec $(printf '%q ' "$dlsim" sweep merge "$spec" --out "$out")")
merge=${merge%%;*}
echo "array $array"
echo "merge $merge"
