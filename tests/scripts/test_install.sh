#!/usr/bin/env bash
# The install is relocatable: `cmake --install BUILD --prefix P` gives P/bin/dlsim, which runs the bundled
# default from any folder, reading the data installed under P/share/dlsim (not the source tree), and writes the
# same summary as the build tree's dlsim.
#   usage: test_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work/elsewhere"
cmake --install "$build" --prefix "$work/P" > "$work/install.log"
# No path of the source tree is compiled into the installed binary.
if strings "$work/P/bin/dlsim" | grep -qF "$source/"; then
  echo "test_install: P/bin/dlsim holds the source path $source" >&2
  exit 1
fi
cd "$work/elsewhere"
"$work/P/bin/dlsim" run --out installed.json > installed.txt
"$build/dlsim" run --out built.json > built.txt
grep -qF "$work/P/share/dlsim/models/clusters/gavel_simulated.json" installed.txt || {
  echo "test_install: the installed dlsim did not read the installed cluster:" >&2
  cat installed.txt >&2
  exit 1
}
# The summary, jobs and time series are the same; only the input paths and the run's self-profile differ.
python3 - installed.json built.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("run_id", "summary", "jobs", "timeseries"):
    if a[key] != b[key]:
        sys.exit(f"test_install: '{key}' differs between the installed and the built dlsim")
print("test_install: installed dlsim matches the build tree's (run_id", a["run_id"] + ")")
PY
