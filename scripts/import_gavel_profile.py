#!/usr/bin/env python3
"""Convert Gavel's measured throughputs into a dlsim profile (models/profiles/gavel.json).

Source: Gavel (Narayanan et al., OSDI'20), scheduler/simulation_throughputs.json at commit
c4fa40097339e9608ab71fd64c8bdea96a5e4a4c (MIT). Only the figures carry over: single-GPU
iterations/s per type ("null" entries of scale factor 1) and the consolidated multi-GPU points
(scale factors 2, 4, 8) as throughput_n. A 0.0 in Gavel's table means infeasible and stays 0.

usage: python3 scripts/import_gavel_profile.py SHARED/data/traces/gavel/simulation_throughputs.json > models/profiles/gavel.json
"""
import ast
import json
import sys

# Parameter counts we can source (torchvision model definitions); the rest are left out rather than guessed.
PARAMS = {"ResNet-18": 11689512, "ResNet-50": 25557032}
TYPES = ["v100", "p100", "k80"]


def main(path):
    table = json.load(open(path))
    models = {}
    for gpu in TYPES:
        for key, entry in table[gpu].items():
            name, scale = ast.literal_eval(key)
            m = models.setdefault(name, {"throughput": {}, "throughput_n": {}})
            if scale == 1:
                m["throughput"][gpu] = entry["null"]
            elif entry["null"] > 0:
                m["throughput_n"].setdefault(gpu, {})[str(scale)] = entry["null"]
    out = {}
    for name in sorted(models, key=lambda n: (n.split(" ")[0], len(n), n)):
        m = models[name]
        rec = {}
        family = name.split(" (")[0]
        if family in PARAMS:
            rec["params"] = PARAMS[family]
            rec["grad_dtype"] = "fp32"
        rec["throughput"] = {t: m["throughput"][t] for t in TYPES if t in m["throughput"]}
        rec["throughput_n"] = {t: dict(sorted(m["throughput_n"][t].items(), key=lambda kv: int(kv[0])))
                               for t in TYPES if t in m["throughput_n"]}
        out[name] = rec
    doc = {
        "schema": "dlsim.profile/1",
        "source": "Gavel (OSDI'20) measured throughputs, scheduler/simulation_throughputs.json @ c4fa400 "
                  "(stanford-futuredata/gavel, MIT); converted by scripts/import_gavel_profile.py",
        "units": "iterations/s",
        "models": out,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
