#!/usr/bin/env python3
"""The bundled profiles are what their import scripts make of the shared data, byte for byte.

usage: test_profile_imports.py SOURCE_DIR SHARED_DATA_DIR
Where the shared data is missing the test fails, unless DLSIM_SKIP_SHARED_DATA=1: then it exits 77,
which CTest reports as skipped (as the [shared-data] Catch2 tests do, tests/support/shared_data.hpp).
"""
import os
import subprocess
import sys

# (script, its input under the shared data, the bundled profile it writes)
IMPORTS = [
    ("scripts/import_gavel_profile.py", "traces/gavel/simulation_throughputs.json", "models/profiles/gavel.json"),
    ("scripts/import_pollux_profile.py", "profiles/pollux", "models/profiles/pollux.json"),
]


def main(source, shared):
    failed = skipped = 0
    for script, data, profile in IMPORTS:
        path = os.path.join(shared, data)
        if not os.path.exists(path):
            if os.environ.get("DLSIM_SKIP_SHARED_DATA") == "1":
                print(f"skipped: {path} not found (DLSIM_SKIP_SHARED_DATA=1)")
                skipped += 1
                continue
            print(f"FAILED: shared data missing: {path} (configure with -DDLSIM_SHARED_DATA=DIR, "
                  "or set DLSIM_SKIP_SHARED_DATA=1 to report this test as skipped)")
            failed += 1
            continue
        made = subprocess.run([sys.executable, os.path.join(source, script), path], check=True,
                              stdout=subprocess.PIPE).stdout
        with open(os.path.join(source, profile), "rb") as f:
            committed = f.read()
        if made != committed:
            print(f"FAILED: {profile} differs from the output of {script} {path}; regenerate it with\n"
                  f"  python3 {script} {path} > {profile}")
            failed += 1
        else:
            print(f"ok: {profile} == {script} {data}")
    return 1 if failed else (77 if skipped else 0)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
