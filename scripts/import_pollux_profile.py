#!/usr/bin/env python3
"""Convert Pollux's measured step times into a dlsim profile (models/profiles/pollux.json).

Source: Pollux (Qiao et al., OSDI'21), github.com/petuum/adaptdl branch osdi21-artifact, commit
c793c7089bd307462686339d29707925c461f9a9 (Apache-2.0), simulator/traces/<app>/placements.csv and
scalability.csv, measured on AWS g4dn.12xlarge nodes (4x T4 per node over PCIe, 50 Gb/s).

Per app, one model with:
- params and grad_dtype (fp32: the benchmarks train in fp32), from the table PARAMS below;
- local_bsz: the largest local batch measured on every placement string, so that the single-GPU
  throughput and every placement can be compared at the same batch;
- throughput {"t4": 1 / step time of placement "1" at that local_bsz} (iterations/s);
- placements: every row of placements.csv (placement, local_bsz, step_time), then the rows of
  scalability.csv whose GPUs spread evenly over 4-GPU nodes (num_replicas divisible by num_nodes,
  at most 4 per node), written as the placement string of num_nodes equal digits.
Only the figures carry over; sync_time is not used (dlsim models it).

usage: python3 scripts/import_pollux_profile.py SHARED/data/profiles/pollux > models/profiles/pollux.json
"""
import csv
import json
import os
import sys

COMMIT = "c793c7089bd307462686339d29707925c461f9a9"
GPUS_PER_NODE = 4

# app -> (model name, parameter count, source). [C]: counted by us from the reference code named.
PARAMS = {
    "bert": ("BERT-base (SQuAD)", 109483778,
             "[C] bert-base-uncased (HF config: vocab 30522, hidden 768, 12 layers, FFN 3072, 512 positions, "
             "2 token types) = 109,482,240 incl. pooler, plus the SQuAD head 768x2+2 (BertForQuestionAnswering); "
             "adaptdl benchmark/models/bert/run.sh"),
    "cifar10": ("ResNet-18 (CIFAR-10)", 11173962,
                "[C] kuangliu/pytorch-cifar models/resnet.py ResNet18 (10 classes), which adaptdl "
                "benchmark/models/cifar10/main.py trains (--model ResNet18)"),
    "deepspeech2": ("DeepSpeech2", 41187968,
                    "[C] adaptdl benchmark/models/deepspeech2/model.py with train.py defaults: 5 bidirectional "
                    "GRU layers of 800, 2 conv layers, 16 kHz / 20 ms windows (RNN input 1312), 29 labels "
                    "(deepspeech.pytorch labels.json [R])"),
    "imagenet": ("ResNet-50 (ImageNet)", 25557032, "[V] torchvision resnet50 (models/README.md)"),
    "ncf": ("NCF (NeuMF, ML-1M)", 1602657,
            "[C] adaptdl benchmark/models/ncf/model.py NeuMF-end, factor_num 32, num_layers 3 (main.py defaults), "
            "ML-1M 6040 users x 3706 items (He et al. WWW'17, Table 1 [R])"),
    "yolov3": ("YOLOv3 (VOC)", 61626049,
               "[C] adaptdl benchmark/models/yolov3/model: backbones/darknet53.py (Darknet-53, 40,584,928) and "
               "necks/yolo_fpn.py, 20 VOC classes (3 x (5 + 20) = 75 output channels per scale; batch-normed convs "
               "without bias [R]). With 80 classes the same count gives 61,949,149, ultralytics' yolov3.cfg figure [R]"),
}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    """The CSV's decimal text as a float (repr gives back the shortest form that round-trips)."""
    return float(text)


def model_for(root, app):
    name, params, source = PARAMS[app]
    rows = read(os.path.join(root, app, "placements.csv"))
    batches = {}
    for r in rows:
        batches.setdefault(r["placement"], set()).add(int(r["local_bsz"]))
    local_bsz = max(set.intersection(*batches.values()))
    single = [number(r["step_time"]) for r in rows if r["placement"] == "1" and int(r["local_bsz"]) == local_bsz]
    assert len(single) == 1, (app, single)
    points = [(r["placement"], int(r["local_bsz"]), number(r["step_time"])) for r in rows]
    for r in read(os.path.join(root, app, "scalability.csv")):
        nodes, replicas = int(r["num_nodes"]), int(r["num_replicas"])
        if replicas % nodes == 0 and replicas // nodes <= GPUS_PER_NODE:
            points.append((str(replicas // nodes) * nodes, int(r["local_bsz"]), number(r["step_time"])))
    rec = {
        "description": f"Pollux app '{app}'; params: {source}. throughput = 1 / step time of placement \"1\" at "
                       f"local_bsz (the largest local batch measured on every placement)",
        "params": params,
        "grad_dtype": "fp32",
        "local_bsz": local_bsz,
        "throughput": {"t4": 1.0 / single[0]},
        "placements": [{"placement": p, "local_bsz": b, "step_time": t} for p, b, t in points],
    }
    return name, rec


def dump(doc):
    """indent=1 JSON, except that each placement point sits on one line (the file holds thousands)."""
    models = doc["models"]
    text = json.dumps({**doc, "models": {k: {**v, "placements": []} for k, v in models.items()}}, indent=1)
    for name, rec in models.items():
        lines = ",\n".join("    " + json.dumps(p, separators=(", ", ": ")) for p in rec["placements"])
        empty = json.dumps({**rec, "placements": []}, indent=1).splitlines()[-2]  # '"placements": []'
        assert empty.strip() == '"placements": []'
        marker = f'{json.dumps(name)}: {{'
        start = text.index(marker)
        at = text.index('"placements": []', start)
        text = text[:at] + '"placements": [\n' + lines + "\n   ]" + text[at + len('"placements": []'):]
    return text + "\n"


def main(root):
    models = dict(model_for(root, app) for app in PARAMS)
    doc = {
        "schema": "dlsim.profile/1",
        "source": f"Pollux (OSDI'21) measured step times, github.com/petuum/adaptdl branch osdi21-artifact @ {COMMIT} "
                  "(Apache-2.0): simulator/traces/<app>/placements.csv and scalability.csv, 4x T4 per node (PCIe), "
                  "50 Gb/s; converted by scripts/import_pollux_profile.py",
        "units": "iterations/s",
        "models": models,
    }
    sys.stdout.write(dump(doc))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
