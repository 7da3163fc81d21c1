#!/usr/bin/env bash
# Regenerates the reference experiment in results/reference/: the sweep in results/reference/sweep.json
# (FIFO vs SRTF across loads on the bundled heterogeneous cluster), its index, figures and table.
# Per-run results go to results/reference/runs/ (not committed; finished runs are reused).
#   usage: bash scripts/reference_experiment.sh        (after scripts/setup.sh has built ./build/dlsim)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=results/reference
python=python3
# The plots need matplotlib; Debian's interpreter has it when a python3 earlier on PATH does not.
"$python" -c "import matplotlib" 2>/dev/null || python=/usr/bin/python3

./build/dlsim sweep "$dir/sweep.json" --out "$dir"
"$python" scripts/plot.py load "$dir/index.json" --x resample_rate --metrics avg_jct,p99_jct -o "$dir/load.png" \
  --data-out "$dir/load.csv"
"$python" scripts/plot.py load "$dir/index.json" --x resample_rate --metrics avg_jct,p99_jct -o "$dir/load.pdf"
"$python" scripts/plot.py bars "$dir/index.json" --baseline fifo --where resample_rate=3 -o "$dir/bars_rate3.png" \
  --data-out "$dir/bars_rate3.csv"
"$python" scripts/plot.py cdf --index "$dir/index.json" --where resample_rate=3 --where seed=1 -o "$dir/jct_cdf_rate3.png"
"$python" scripts/plot.py util "$dir/runs/$(awk -F, '$3=="srtf" && $4=="3" && $5=="1" {print $1}' "$dir/index.csv").json" \
  -o "$dir/util_srtf_rate3.png"
"$python" scripts/plot.py table "$dir/index.json" --by resample_rate \
  --metrics avg_jct,p99_jct,gpu_utilization,preemptions_per_job,migrations_per_job -o "$dir/table.md"
echo "reference experiment: $dir (index.csv, load.png, bars_rate3.png, jct_cdf_rate3.png, util_srtf_rate3.png, table.md)"
