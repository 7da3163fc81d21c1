"""The notebook example of the Python module's page runs as printed: the code block after the marker
`<!-- notebook-example -->` in the page given by --readme (sim/python/README.md), run with the `dlsim`
module on the path and matplotlib's Agg backend, writes its figure.

Usage: test_readme_notebook.py --module-dir DIR --readme sim/python/README.md --work DIR"""
import argparse
import os
import re
import subprocess
import sys

args = argparse.ArgumentParser()
args.add_argument("--module-dir", required=True)
args.add_argument("--readme", required=True)
args.add_argument("--work", required=True)
a = args.parse_args()

with open(a.readme) as f:
    text = f.read()
m = re.search(r"<!-- notebook-example -->\s*```python\n(.*?)```", text, re.S)
if not m:
    sys.exit(f"{a.readme}: no ```python block after <!-- notebook-example -->")
code = m.group(1)
lines = code.strip().splitlines()
if len(lines) > 16:
    sys.exit(f"{a.readme}: the notebook example has {len(lines)} lines (at most 16)")
os.makedirs(a.work, exist_ok=True)
figure = os.path.join(a.work, "jct_cdf.png")
if os.path.exists(figure):
    os.remove(figure)
env = dict(os.environ, PYTHONPATH=a.module_dir, MPLBACKEND="Agg")
subprocess.run([sys.executable, "-c", code], cwd=a.work, env=env, check=True)
if not os.path.getsize(figure) > 10000:
    sys.exit("the example wrote no figure")
print(f"{a.readme}: notebook example of {len(lines)} lines wrote {figure}")
