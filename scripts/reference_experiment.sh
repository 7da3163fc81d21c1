#!/usr/bin/env bash
# Regenerates the reference experiments, each in its own folder of results/reference/ (results/README.md):
# its sweep (sweep.json), index, figures and table. Per-run results go to
# <folder>/runs/ (not committed; finished runs are reused).
#   usage: bash scripts/reference_experiment.sh [EXPERIMENT...]    (default: all; after scripts/setup.sh)
#   experiments: gavel-fifo-srtf  tiresias-philly (reads ../shared/data/traces/pollux/philly.csv)
#                gavel-continuous-single  gavel-continuous-multi  gavel-ftf-rho  (Gavel's paper experiments;
#                compared with ../shared/data/gavel/reference/notebook_continuous_results.csv)
#                pollux-jobload  (Pollux's job-load study; compared with
#                ../shared/data/pollux-results/results-jobload, the artifact's per-workload results)
#                sia-tables  (Sia's Tables 3 and 4 on its workloads, ../shared/data/traces/sia/workloads;
#                compared with the published figures)
#                figures  (one example of each kind of figure, from gavel-fifo-srtf's and tiresias-philly's runs)
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
# The plots need matplotlib; Debian's interpreter has it when a python3 earlier on PATH does not.
"$python" -c "import matplotlib" 2>/dev/null || python=/usr/bin/python3
plot() { "$python" scripts/plot.py "$@"; }

# The figures every experiment has: load curves, bars against fifo and JCT CDFs at one rate, a table.
common_figures() {  # dir rate
  local dir=$1 rate=$2
  plot load "$dir/index.json" --x resample_rate --metrics avg_jct,p99_jct -o "$dir/load.png" --data-out "$dir/load.csv"
  plot load "$dir/index.json" --x resample_rate --metrics avg_jct,p99_jct -o "$dir/load.pdf"
  plot bars "$dir/index.json" --baseline fifo --where "resample_rate=$rate" -o "$dir/bars_rate$rate.png" \
    --data-out "$dir/bars_rate$rate.csv"
  plot cdf --index "$dir/index.json" --where "resample_rate=$rate" --where seed=1 -o "$dir/jct_cdf_rate$rate.png"
  plot table "$dir/index.json" --by resample_rate \
    --metrics avg_jct,p99_jct,gpu_utilization,preemptions_per_job,migrations_per_job -o "$dir/table.md"
}

notebook=../shared/data/gavel/reference/notebook_continuous_results.csv

# One example of each kind of figure (results/reference/figures/README.md), from the runs of gavel-fifo-srtf
# and tiresias-philly (run those first: their finished runs are reused).
example_figures() {
  local out=results/reference/figures fs=results/reference/gavel-fifo-srtf ti=results/reference/tiresias-philly
  mkdir -p "$out"
  plot load "$ti/index.json" --metrics avg_jct,avg_queueing_delay,avg_pending_time --x resample_rate \
    --where policy=las,srtf,tiresias,tiresias-gittins --where resample_rate=5,6,7,8,9 --dpi 100 -o "$out/load.png"
  plot bars "$fs/index.json" --baseline fifo --metrics avg_jct,p99_jct,gpu_utilization --dpi 100 -o "$out/bars.png"
  plot cdf --index "$fs/index.json" --where resample_rate=3 --where seed=1 --dpi 100 -o "$out/cdf.png"
  plot fairness --index "$ti/index.json" --where resample_rate=9 --where seed=1 --where policy=fifo,las,tiresias \
    --logx --dpi 100 -o "$out/fairness.png"
  plot util "$fs/runs/$(awk -F, '$3=="srtf" && $4=="3" && $5=="1" {print $1}' "$fs/index.csv").json" --dpi 100 \
    -o "$out/util.png"
  plot vc --index "$ti/index.json" --where resample_rate=9 --where seed=1 --where policy=fifo,las,tiresias \
    --dpi 100 -o "$out/vc.png"
  echo "example figures: $out"
}

run() {
  local name=$1 dir=results/reference/$1
  if [ "$name" = figures ]; then example_figures; return; fi
  [ "$name" = pollux-jobload ] || [ "$name" = sia-tables ] || bash scripts/gavel_traces.sh ./build/dlsim "$dir"  # Gavel's streams: generated
  ./build/dlsim sweep "$dir/sweep.json" --out "$dir" --jobs 2
  case $name in
    gavel-fifo-srtf)
      common_figures "$dir" 3
      plot util "$dir/runs/$(awk -F, '$3=="srtf" && $4=="3" && $5=="1" {print $1}' "$dir/index.csv").json" \
        -o "$dir/util_srtf_rate3.png" ;;
    tiresias-philly)
      common_figures "$dir" 9
      plot fairness --index "$dir/index.json" --where resample_rate=9 --where seed=1 --logx -o "$dir/ftf_cdf_rate9.png"
      plot vc --index "$dir/index.json" --where resample_rate=9 --where seed=1 --where policy=fifo,las,tiresias \
        -o "$dir/vc_rate9.png" --data-out "$dir/vc_rate9.csv" ;;
    gavel-continuous-single|gavel-continuous-multi)
      # Seed 0 against the notebook CSV (Gavel's seed-0 runs), seed means against the notebook's seed-averaged
      # cells where it prints them (notebook_seed_means.csv; the multi-GPU notebook only). The load plot
      # comes from compare_gavel.py too: plot.py's series are policies, which would merge gavel-las with
      # its space-sharing runs.
      local kind=continuous-single means=()
      [ "$name" = gavel-continuous-multi ] && kind=continuous-multiple
      [ -e "$dir/notebook_seed_means.csv" ] && means=(--seed-means "$dir/notebook_seed_means.csv")
      "$python" scripts/compare_gavel.py "$dir/index.json" --notebook "$notebook" --trace-kind "$kind" \
        "${means[@]}" -o "$dir/comparison.md" --load-out "$dir/load.csv" --plot "$dir/load.png" > /dev/null ;;
    pollux-jobload)
      "$python" scripts/compare_pollux.py "$dir/index.json" --artifact ../shared/data/pollux-results/results-jobload \
        -o "$dir/comparison.md" --plot "$dir/load.png" ;;
    sia-tables)
      "$python" scripts/compare_sia.py "$dir/index.json" -o "$dir/comparison.md" --plot "$dir/jct.png" ;;
    gavel-ftf-rho)
      "$python" scripts/rho_table.py "$dir/index.json" --baseline gavel-isolated -o "$dir/table.md" > /dev/null
      plot fairness --index "$dir/index.json" --where resample_rate=2 --where seed=0 --logx -o "$dir/ftf_cdf_rate2.png" ;;
    *) echo "reference_experiment.sh: unknown experiment '$name'" >&2; exit 2 ;;
  esac
  echo "reference experiment: $dir"
}

if [ $# -eq 0 ]; then
  set -- gavel-fifo-srtf tiresias-philly gavel-continuous-single gavel-continuous-multi gavel-ftf-rho pollux-jobload \
    sia-tables figures
fi
for name in "$@"; do run "$name"; done
