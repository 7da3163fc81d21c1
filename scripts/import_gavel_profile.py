#!/usr/bin/env python3
"""Convert Gavel's measured throughputs into a dlsim profile (models/profiles/gavel.json).

Source: Gavel (Narayanan et al., OSDI'20), scheduler/simulation_throughputs.json at commit
c4fa40097339e9608ab71fd64c8bdea96a5e4a4c (MIT). Only the figures carry over: single-GPU
iterations/s per type ("null" entries of scale factor 1) and the consolidated multi-GPU points
(scale factors 2, 4, 8) as throughput_n. A 0.0 in Gavel's table means infeasible and stays 0.
Space-sharing pairs of scale factor 1 (two single-GPU jobs on one GPU) become `pairs`: Gavel's table is
symmetric, so each pair is listed once, under the model whose name sorts first, as [its rate, the
other's], rounded to 6 significant digits; a pair with a 0 (not measured or infeasible) is left out.
Gavel's pairs of larger scale factors are all 0 (never measured), so there is nothing more to import;
dlsim derives multi-GPU packing from the 1-GPU pair (models/packed_performance.hpp).

usage: python3 scripts/import_gavel_profile.py SHARED/data/traces/gavel/simulation_throughputs.json > models/profiles/gavel.json
"""
import ast
import json
import re
import sys

# Parameter counts of Gavel's workloads (scheduler/job_table.py names the script and flags of each), with
# where each comes from. [V] read in the source named; [C] counted by us from the reference code named,
# layer by layer; [R] recalled, not re-read. Gradients are fp32 (the workloads train in fp32).
PARAMS = {
    "ResNet-18": (11173962,
                  "[C] ResNet18 for CIFAR-10 (kuangliu/pytorch-cifar models/resnet.py: 3x3 stem, no max-pool, "
                  "10-way head), which Gavel's workloads/pytorch/image_classification/cifar10 trains"),
    "ResNet-50": (25557032, "[V] torchvision resnet50 (ImageNet, 1000 classes; MODELLING.md 1.5)"),
    "LM": (13987678,
           "[C] workloads/pytorch/language_modeling/main.py defaults: 2-layer LSTM, emsize = nhid = 200, untied, "
           "on Wikitext-2 (33,278-word vocabulary of PyTorch's word_language_model corpus [R]): embedding "
           "6,655,600 + LSTM 643,200 + decoder 6,688,878"),
    "A3C": (3249639,
            "[C] A3Clstm of dgriff777/rl_a3c_pytorch model.py, which workloads/pytorch/rl/main.py builds (its copy "
            "of model.py assumed unchanged [R]): 4 convs (1 input channel), LSTMCell(1024, 512), critic, actor "
            "with Pong's 6 actions"),
    "CycleGAN": (28285832,
                 "[C] eriklindernoren/PyTorch-GAN implementations/cyclegan/models.py, which "
                 "workloads/pytorch/cyclegan/cyclegan.py builds (copy assumed unchanged [R]): 2 ResNet generators "
                 "with 9 residual blocks (11,378,179 each) + 2 PatchGAN discriminators (2,764,737 each)"),
}
# Left out: their size depends on data we cannot read (vocabularies, user counts), so their
# communication time is zero in dlsim.
UNSOURCED = {
    "Transformer": "Gavel's translation Transformer (attention-is-all-you-need-pytorch, d_model 512, 6 layers, "
                   "-proj_share_weight) on Multi30k: its size depends on the vocabularies of multi30k.atok.low.pt, "
                   "which we could not read",
    "Recommendation": "Gavel's recoder DynamicAutoencoder (one hidden layer of 200, item-based) on ML-20M: its size "
                      "depends on the number of users of the preprocessed split, which we could not read",
}
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
                for other_key, rates in entry.items():
                    if other_key == "null":
                        continue
                    other, other_scale = ast.literal_eval(other_key)
                    if other_scale != 1 or other < name or min(rates) <= 0:
                        continue
                    pairs = m.setdefault("pairs", {}).setdefault(gpu, {})
                    pairs[other] = [float(f"{x:.6g}") for x in rates]
            elif entry["null"] > 0:
                m["throughput_n"].setdefault(gpu, {})[str(scale)] = entry["null"]
    out = {}
    for name in sorted(models, key=lambda n: (n.split(" ")[0], len(n), n)):
        m = models[name]
        rec = {}
        family = name.split(" (")[0]
        if family in PARAMS:
            rec["params"], source = PARAMS[family]
            rec["grad_dtype"] = "fp32"
            rec["source"] = "params: " + source
        else:
            rec["description"] = UNSOURCED[family] + ". No params: its communication time is taken as zero"
        rec["throughput"] = {t: m["throughput"][t] for t in TYPES if t in m["throughput"]}
        rec["throughput_n"] = {t: dict(sorted(m["throughput_n"][t].items(), key=lambda kv: int(kv[0])))
                               for t in TYPES if t in m["throughput_n"]}
        if "pairs" in m:
            rec["pairs"] = {t: dict(sorted(m["pairs"][t].items())) for t in TYPES if t in m["pairs"]}
        out[name] = rec
    doc = {
        "schema": "dlsim.profile/1",
        "source": "Gavel (OSDI'20) measured throughputs, scheduler/simulation_throughputs.json @ c4fa400 "
                  "(stanford-futuredata/gavel, MIT); converted by scripts/import_gavel_profile.py",
        "units": "iterations/s",
        "models": out,
    }
    # One line per pair ("[self, other]"), not three: the pairs are most of the file.
    text = json.dumps(doc, indent=1)
    text = re.sub(r"\[\n\s*([-0-9.eE+]+),\n\s*([-0-9.eE+]+)\n\s*\]", r"[\1, \2]", text)
    sys.stdout.write(text + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
