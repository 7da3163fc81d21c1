#!/usr/bin/env python3
"""Figures and tables from dlsim results (dlsim.result/1) and sweep indexes (dlsim.sweep-index/1).

  plot.py cdf   RESULT.json... -o jct_cdf.pdf          JCT CDF per run
  plot.py load  INDEX.json -o load.pdf                 metric vs load per policy, mean and min-max over seeds
  plot.py util  RESULT.json -o util.png                busy GPUs by type over time
  plot.py bars  INDEX.json -o bars.pdf --baseline fifo metric means per policy ÷ the baseline's
  plot.py table INDEX.json -o table.md                 metric means per policy (Markdown or LaTeX)
  plot.py fairness RESULT.json... -o ftf.pdf           finish-time fairness (rho) CDF per run
  plot.py vc    RESULT.json... -o vc.pdf               mean JCT per VC (summary.by_vc), a bar per run

The figure format (PNG, PDF or SVG) follows the output's extension. --data-out F.csv writes exactly
the plotted numbers. Policies are labelled by the name in their results (config.policy) and
coloured in the sorted order of the names present (in the whole sweep index, or the result files
given), so the figures of one experiment agree; no policy list is built in. The per-type capacity
and the measurement window come from the result (config.cluster.gpus_by_type, summary.measure).
Needs the standard library and, except for `table`, matplotlib (Debian: python3-matplotlib).
"""
import argparse
import colorsys
import csv
import json
import math
import os
import sys
import zlib

RESULT_SCHEMA = "dlsim.result/1"
INDEX_SCHEMA = "dlsim.sweep-index/1"
FIGURE_FORMATS = ("png", "pdf", "svg")
HOUR = 3600.0

# Summary metrics in seconds: figures and tables show them in hours.
SECONDS_METRICS = {"avg_jct", "p50_jct", "p95_jct", "p99_jct", "avg_queueing_delay", "makespan"}

# Policy colours, given to the policy names present in sorted order (assign_policy_colours); a name
# past the palette, or never assigned, gets a colour hashed from its name.
POLICY_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173"]
_policy_colours = {}

# GPU types keep their colour across utilisation figures too.
KNOWN_GPU_TYPES = {"V100": "#4c72b0", "P100": "#dd8452", "K80": "#55a868", "A100": "#c44e52",
                   "H100": "#8172b3", "T4": "#937860", "A10": "#da8bc3", "RTX": "#8c8c8c"}

LINESTYLES = ["-", "--", ":", "-."]


class InputError(Exception):
    """Bad input: printed as one line naming the file or option, exit code 2."""


# ---------------------------------------------------------------- names, colours, order

def hash_colour(name):
    """A colour for a name outside the fixed maps: a stable hash (crc32, not hash()) picks the hue."""
    h = zlib.crc32(str(name).encode("utf-8"))
    hue = (h % 360) / 360.0
    sat = 0.55 + ((h >> 9) % 30) / 100.0
    val = 0.60 + ((h >> 17) % 25) / 100.0
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def assign_policy_colours(names):
    """Colours for these policy names, in their sorted order: the same set of names always gets the same
    colours, whatever order the runs come in."""
    _policy_colours.clear()
    for i, name in enumerate(sorted({str(n) for n in names if n is not None})):
        _policy_colours[name] = POLICY_PALETTE[i] if i < len(POLICY_PALETTE) else hash_colour(name)


def policy_colour(name):
    return _policy_colours.get(str(name)) or hash_colour(name)


def policy_label(name):
    return str(name)


def policy_key(name):
    """Policies in sorted order of their names."""
    return str(name)


def gpu_colour(name):
    return KNOWN_GPU_TYPES.get(name) or hash_colour("gpu:" + name)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def value_key(v):
    """Order for parameter values: numbers numerically, then anything else by its text."""
    return (0, float(v), "") if is_number(v) else (1, 0.0, value_text(v))


def distinct(values):
    """Distinct values in first-seen order (values may be lists, so compare their JSON)."""
    seen, out = set(), []
    for v in values:
        k = json.dumps(v, sort_keys=True)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def group_key(*values):
    return json.dumps(values, sort_keys=True)


def value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, float):
        return repr(v)
    return json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else str(v)


def num_text(v):
    """Numbers in CSV: shortest round-trip form."""
    if isinstance(v, bool) or not is_number(v):
        return value_text(v)
    return repr(v) if isinstance(v, float) else str(v)


def metric_unit(metric):
    return "h" if metric in SECONDS_METRICS else ""


def metric_scale(metric):
    return 1.0 / HOUR if metric in SECONDS_METRICS else 1.0


def metric_title(metric):
    unit = metric_unit(metric)
    return f"{metric} ({unit})" if unit else metric


def param_title(param):
    return {"load_scale": "load scale (× arrival rate)", "resample_rate": "arrival rate (jobs/h)"}.get(
        param, param)


def flatten(obj, prefix=""):
    """{'params': {'a': 1}} -> {'params.a': 1}: object-valued parameters become dotted keys."""
    out = {}
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


# ---------------------------------------------------------------- reading inputs

def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (expected {what})")
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder (expected {what})")
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror}; expected {what})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON ({e}; expected {what})")


def read_document(path, schema, what, other_schema, other_hint):
    """A JSON document that must carry `schema`; `other_hint` helps when it is the other kind of file."""
    doc = read_json(path, f"{what}, schema {schema}")
    found = doc.get("schema") if isinstance(doc, dict) else None
    if found != schema:
        hint = f" ({other_hint})" if found == other_schema else ""
        raise InputError(f"{path}: not {what} (expected \"schema\": \"{schema}\", found {json.dumps(found)}){hint}")
    return doc


def load_result(path):
    doc = read_document(path, RESULT_SCHEMA, "a dlsim result", INDEX_SCHEMA,
                        "a sweep index: use plot.py load, bars or table")
    for key in ("config", "summary"):
        if not isinstance(doc.get(key), dict):
            raise InputError(f"{path}: field '{key}': expected an object")
    return doc


class Index:
    """A sweep index: its rows with flattened parameters, and where the run results are."""

    def __init__(self, path):
        doc = read_document(path, INDEX_SCHEMA, "a dlsim sweep index", RESULT_SCHEMA,
                            "a run result: use plot.py cdf or util")
        if not isinstance(doc.get("runs"), list):
            raise InputError(f"{path}: field 'runs': expected an array")
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        self.name = doc.get("sweep", "")
        self.metrics = [m for m in doc.get("metrics", []) if isinstance(m, str)]
        self.rows = []
        for i, run in enumerate(doc["runs"]):
            if not isinstance(run, dict) or not isinstance(run.get("parameters"), dict):
                raise InputError(f"{path}: runs[{i}]: expected an object with 'parameters'")
            status = run.get("status")
            if status not in ("done", "failed", "missing"):
                raise InputError(f"{path}: runs[{i}].status: expected done, failed or missing, "
                                 f"got {json.dumps(status)}")
            if status == "done" and not isinstance(run.get("summary"), dict):
                raise InputError(f"{path}: runs[{i}] is done but its 'summary' is not an object")
            self.rows.append({"i": i, "run_id": run.get("run_id", f"#{i}"), "status": status,
                              "params": flatten(run["parameters"]), "summary": run.get("summary"),
                              "result": run.get("result")})
        # Swept keys in spec order, flattened (params -> params.<key>).
        self.parameters = []
        for p in doc.get("parameters", []):
            keys = sorted({k for r in self.rows for k in r["params"] if k == p or k.startswith(p + ".")})
            self.parameters.extend(keys or [p])
        self._results = {}

    def result_path(self, row):
        if not isinstance(row["result"], str):
            raise InputError(f"{self.path}: run {row['run_id']} has no 'result' path")
        return os.path.join(self.dir, row["result"])

    def result(self, row):
        p = self.result_path(row)
        if p not in self._results:
            self._results[p] = load_result(p)
        return self._results[p]

    def value(self, row, key):
        """A row's parameter; the policy comes from its result when the sweep does not vary it."""
        if key in row["params"]:
            return row["params"][key]
        if key == "policy" and row["status"] == "done":
            return self.result(row)["config"].get("policy")
        return None

    def policies(self, rows):
        """The policy names of the whole index (when swept) and of these rows: colours are assigned over
        them, so every figure of one sweep gives a policy the same colour."""
        names = {r["params"]["policy"] for r in self.rows if "policy" in r["params"]}
        return names | {self.value(r, "policy") for r in rows}

    def keys(self):
        keys = list(self.parameters)
        keys += sorted({k for r in self.rows for k in r["params"]} - set(keys))
        return keys if "policy" in keys else keys + ["policy"]

    def check_key(self, key, option):
        if key not in self.keys():
            raise InputError(f"{option} '{key}': not a parameter of {self.path} "
                             f"(expected one of: {', '.join(self.keys())})")


def parse_where(items):
    """--where k=v (repeatable; every key must match; k=a,b accepts either value)."""
    out = []
    for item in items or []:
        key, sep, val = item.partition("=")
        if not sep or not key:
            raise InputError(f"--where '{item}': expected key=value")
        out.append((key, val.split(",")))
    return out


def value_matches(actual, texts):
    for t in texts:
        if isinstance(actual, bool) or actual is None:
            if value_text(actual) == t.lower():
                return True
        elif is_number(actual):
            try:
                if float(t) == float(actual):
                    return True
            except ValueError:
                pass
        elif value_text(actual) == t:
            return True
    return False


def select(index, wheres, prog):
    """Rows matching every --where; warns once about failed or missing ones, which are left out."""
    for key, _ in wheres:
        index.check_key(key, "--where")
    def matches(r, key, texts):
        # A run that did not finish has only its parameters: a key it lacks (an unswept policy) is unknown.
        if r["status"] != "done" and key not in r["params"]:
            return True
        return value_matches(index.value(r, key), texts)

    matching = [r for r in index.rows if all(matches(r, k, v) for k, v in wheres)]
    done = [r for r in matching if r["status"] == "done"]
    bad = [r for r in matching if r["status"] != "done"]
    if bad:
        failed = sum(r["status"] == "failed" for r in bad)
        print(f"{prog}: warning: {len(bad)} of {len(matching)} runs in {index.path} are not done "
              f"({failed} failed, {len(bad) - failed} missing) and are left out", file=sys.stderr)
    if not done:
        what = " matching " + " ".join(f"{k}={','.join(v)}" for k, v in wheres) if wheres else ""
        raise InputError(f"{index.path}: no finished runs{what} (the index has {len(index.rows)} runs)")
    return done


def parse_metrics(text, index, rows, option="--metrics"):
    metrics = [m.strip() for m in text.split(",") if m.strip()]
    if not metrics:
        raise InputError(f"{option}: expected a comma-separated list of summary metrics")
    valid = list(index.metrics)
    for r in rows[:1]:
        valid += [k for k, v in flatten(r["summary"]).items() if is_number(v) and k not in valid]
    # Counts per job: preemptions, migrations, rejected or unfinished divided by the run's jobs
    # ("preemptions_per_job"), so churn is read next to JCT.
    valid += [f"{m}{PER_JOB}" for m in valid if m in ("preemptions", "migrations", "rejected", "unfinished")]
    for m in metrics:
        if m not in valid:
            raise InputError(f"{option} '{m}': unknown metric (expected one of: {', '.join(valid)})")
    return metrics


PER_JOB = "_per_job"


def metric_value(index, row, metric):
    if metric.endswith(PER_JOB):
        return metric_value(index, row, metric[: -len(PER_JOB)]) / max(1.0, metric_value(index, row, "jobs"))
    v = flatten(row["summary"]).get(metric)
    if not is_number(v):
        raise InputError(f"{index.path}: run {row['run_id']}: summary.{metric}: expected a number, "
                         f"got {json.dumps(v)}")
    return float(v)


def stats(values):
    return {"mean": math.fsum(values) / len(values), "min": min(values), "max": max(values), "n": len(values)}


# ---------------------------------------------------------------- output

def output_format(path, option="-o"):
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FIGURE_FORMATS:
        raise InputError(f"{option} {path}: unknown output format '{os.path.splitext(path)[1]}' "
                         f"(expected .png, .pdf or .svg)")
    return ext


def check_data_out(path):
    if path is not None and not path.lower().endswith(".csv"):
        raise InputError(f"--data-out {path}: expected a .csv file name")


def make_parent(path):
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise InputError(f"{path}: cannot create folder {parent} ({e.strerror})")


def write_csv(path, header, rows):
    if path is None:
        return
    make_parent(path)
    try:
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            for row in rows:
                w.writerow([num_text(v) for v in row])
    except OSError as e:
        raise InputError(f"--data-out {path}: cannot write ({e.strerror})")


def pyplot():
    """matplotlib with the Agg backend and settings that make the output files byte-reproducible."""
    try:
        import matplotlib
    except ImportError:
        raise InputError("matplotlib is required for figures (Debian: apt-get install python3-matplotlib; "
                         "run with /usr/bin/python3)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "dlsim"
    matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType: text stays editable in papers
    matplotlib.rcParams["font.size"] = 9
    import matplotlib.pyplot as plt
    return plt


def figure(plt, args, ncols=1, default=(4.8, 3.4)):
    w, h = args.size if args.size else (default[0] * ncols, default[1])
    fig, axes = plt.subplots(1, ncols, figsize=(w, h), squeeze=False)
    return fig, list(axes[0])


def save(fig, plt, args):
    fmt = output_format(args.out)
    # No creation dates in the file: the same inputs give the same bytes.
    metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}[fmt]
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    make_parent(args.out)
    try:
        fig.savefig(args.out, format=fmt, dpi=150, metadata=metadata, bbox_inches="tight")
    except OSError as e:
        raise InputError(f"-o {args.out}: cannot write ({e.strerror})")
    plt.close(fig)


def series_style(series_key, value):
    if series_key == "policy":
        return policy_colour(value), policy_label(value)
    return hash_colour(f"{series_key}={value_text(value)}"), f"{series_key}={value_text(value)}"


# ---------------------------------------------------------------- cdf

def distinguishing_labels(runs):
    """Label each run by its policy, plus the config values that tell apart runs sharing a policy."""
    def comparable(doc):
        flat = flatten(doc["config"])
        # The reader's report and the file hashes follow from the other keys; output paths say nothing.
        return {k: v for k, v in flat.items() if not k.startswith("trace.report") and not k.endswith("sha256")
                and k.rsplit(".", 1)[-1] not in ("out", "jobs_csv", "event_log")}

    by_policy = {}
    for i, (_, doc) in enumerate(runs):
        by_policy.setdefault(doc["config"].get("policy"), []).append(i)
    labels = [policy_label(doc["config"].get("policy")) for _, doc in runs]
    for members in by_policy.values():
        if len(members) < 2:
            continue
        flats = [comparable(runs[i][1]) for i in members]
        keys = distinct(k for f in flats for k in f)  # config order: trace transforms before seed
        differ = [k for k in keys if len({json.dumps(f.get(k), sort_keys=True) for f in flats}) > 1]
        leaves = [k.rsplit(".", 1)[-1] for k in differ]
        for i, f in zip(members, flats):
            parts = []
            for k, leaf in zip(differ, leaves):
                name = leaf if leaves.count(leaf) == 1 else k
                parts.append(f"{name}={value_text(f.get(k))}")
            if parts:
                labels[i] += " " + " ".join(parts)
    seen = {}
    for i, lab in enumerate(labels):  # identical configs (the same file twice) still get distinct labels
        seen[lab] = seen.get(lab, 0) + 1
        if seen[lab] > 1:
            labels[i] = f"{lab} #{seen[lab]}"
    return labels


def measured(path, doc, all_jobs):
    """The job records inside the run's measurement window as the result states it (summary.measure), as
    its JCT figures use.

    by "jobs": arrival index in [from, to), arrivals ordered by submit time then trace order (the
    records' order); by "time": submit time in [from, to)."""
    jobs = [j for j in doc["jobs"] if isinstance(j, dict)]
    window = doc["summary"].get("measure")
    if all_jobs or not isinstance(window, dict) or window.get("by", "all") == "all":
        return jobs
    lo, hi = window.get("from"), window.get("to")
    if window.get("by") not in ("jobs", "time") or not is_number(lo) or not (hi is None or is_number(hi)):
        raise InputError(f"{path}: summary.measure: expected by all, jobs or time with numbers from and to "
                         f"(use --all-jobs to ignore it), got {json.dumps(window)}")
    if not all(is_number(j.get("submit_time")) for j in jobs):
        raise InputError(f"{path}: jobs: every record needs a numeric submit_time to apply the measurement window")
    if window["by"] == "time":
        picked = [j for j in jobs if lo <= j["submit_time"] and (hi is None or j["submit_time"] < hi)]
    else:
        order = sorted(range(len(jobs)), key=lambda i: jobs[i]["submit_time"])  # stable: trace order on ties
        picked = [jobs[i] for i in order[int(lo):None if hi is None else int(hi)]]
    # The window's own job count says whether these are the jobs the summary measured.
    if is_number(window.get("jobs")) and len(picked) != window["jobs"]:
        raise InputError(f"{path}: summary.measure counts {window['jobs']} jobs in the window but the job records "
                         f"give {len(picked)} (use --all-jobs to ignore the window)")
    return picked


def result_paths(args):
    """The result files of a command that takes RESULT.json... and/or --index with --where; and the index."""
    paths = list(args.results)
    if args.where and not args.index:
        raise InputError("--where needs --index INDEX.json (it selects rows of a sweep index)")
    index = None
    if args.index:
        index = Index(args.index)
        paths += [index.result_path(r) for r in select(index, parse_where(args.where), args.prog)]
    if not paths:
        raise InputError("expected at least one RESULT.json, or --index INDEX.json")
    return paths, index


def job_value_runs(args, field, scale, what):
    """Per run, the sorted values of a job-record field over its finished jobs in the measurement window
    (as the summary's figures use): [(path, doc, values)], runs in policy order, colours assigned."""
    paths, index = result_paths(args)
    runs = []
    for p in paths:
        doc = load_result(p)
        jobs = doc.get("jobs")
        if not isinstance(jobs, list):
            raise InputError(f"{p}: field 'jobs': expected an array")
        if not jobs and doc["summary"].get("jobs", 0):
            raise InputError(f"{p}: no job records (the run used --no-job-records); the {what} needs them")
        values = sorted(float(j[field]) / scale for j in measured(p, doc, args.all_jobs)
                        if j.get("state") == "finished" and is_number(j.get(field)))
        if not values:
            print(f"{args.prog}: warning: {p}: no finished jobs with {field}; left out", file=sys.stderr)
            continue
        runs.append((p, doc, values))
    if not runs:
        raise InputError(f"no run has finished jobs with {field} to plot")
    names = {doc["config"].get("policy") for _, doc, _ in runs}
    if index:
        names |= index.policies([])
    assign_policy_colours(names)
    runs.sort(key=lambda r: policy_key(r[1]["config"].get("policy")))  # stable: input order within a policy
    return runs


def plot_cdfs(args, runs, xlabel, column, marker_at=None):
    labels = distinguishing_labels([(p, d) for p, d, _ in runs])
    plt = pyplot()
    fig, (ax,) = figure(plt, args)
    rows, count = [], {}
    for (p, doc, xs), label in zip(runs, labels):
        policy = doc["config"].get("policy")
        k = count[policy] = count.get(policy, -1) + 1
        n = len(xs)
        ys = [(i + 1) / n for i in range(n)]
        ax.step(xs, ys, where="post", color=policy_colour(policy), linestyle=LINESTYLES[k % len(LINESTYLES)],
                linewidth=1.3, label=label)
        rows += [(label, policy, x, y) for x, y in zip(xs, ys)]
    if marker_at is not None:
        ax.axvline(marker_at, color="black", linestyle=":", linewidth=1)
    if args.logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, plt, args)
    write_csv(args.data_out, ["series", "policy", column, "cdf"], rows)


def cmd_cdf(args):
    fmt_check(args)
    plot_cdfs(args, job_value_runs(args, "jct", HOUR, "CDF"), "JCT (h)", "jct_hours")


# ---------------------------------------------------------------- fairness

def cmd_fairness(args):
    """CDF of each run's finish-time fairness rho (job records' ftf_rho), with a line at rho = 1."""
    fmt_check(args)
    runs = job_value_runs(args, "ftf_rho", 1.0, "fairness CDF")
    plot_cdfs(args, runs, "finish-time fairness ρ (JCT ÷ fair-share time alone)", "ftf_rho", marker_at=1.0)


# ---------------------------------------------------------------- per-VC bars

def cmd_vc(args):
    """Per-VC bars of summary.by_vc (avg_jct in hours, or job counts), one bar per run within each VC."""
    fmt_check(args)
    paths, index = result_paths(args)
    runs = []
    for p in paths:
        doc = load_result(p)
        by_vc = doc["summary"].get("by_vc")
        if not isinstance(by_vc, dict) or not all(isinstance(v, dict) and is_number(v.get(args.metric))
                                                  for v in by_vc.values()):
            raise InputError(f"{p}: summary.by_vc: expected an object of VC -> {{jobs, avg_jct}} "
                             f"(a result of a dlsim with per-VC figures)")
        if not by_vc:
            print(f"{args.prog}: warning: {p}: no VC in its trace; left out", file=sys.stderr)
            continue
        runs.append((p, doc, by_vc))
    if not runs:
        raise InputError("no run has per-VC figures (the traces have no vc column)")
    names = {doc["config"].get("policy") for _, doc, _ in runs}
    if index:
        names |= index.policies([])
    assign_policy_colours(names)
    runs.sort(key=lambda r: policy_key(r[1]["config"].get("policy")))
    labels = distinguishing_labels([(p, d) for p, d, _ in runs])
    vcs = sorted({vc for _, _, by_vc in runs for vc in by_vc})
    scale = HOUR if args.metric == "avg_jct" else 1.0

    plt = pyplot()
    fig, (ax,) = figure(plt, args, default=(max(4.8, 0.5 * len(vcs) * max(1, len(runs)) + 1.5), 3.4))
    width = 0.8 / len(runs)
    rows = []
    hatches = ["", "//", "..", "xx"]
    count = {}
    for k, ((p, doc, by_vc), label) in enumerate(zip(runs, labels)):
        policy = doc["config"].get("policy")
        n = count[policy] = count.get(policy, -1) + 1
        xs = [i - 0.4 + width * (k + 0.5) for i in range(len(vcs))]
        ys = [by_vc[vc][args.metric] / scale if vc in by_vc else 0.0 for vc in vcs]
        ax.bar(xs, ys, width=width, color=policy_colour(policy), hatch=hatches[n % len(hatches)],
               edgecolor="white", linewidth=0.5, label=label)
        rows += [(label, policy, vc, by_vc[vc][args.metric] / scale, by_vc[vc].get("jobs"))
                 for vc in vcs if vc in by_vc]
    ax.set_xticks(range(len(vcs)))
    ax.set_xticklabels(vcs, rotation=45 if len(vcs) > 6 else 0, ha="right" if len(vcs) > 6 else "center",
                       fontsize=7)
    ax.set_xlabel("virtual cluster")
    ax.set_ylabel("mean JCT (h)" if args.metric == "avg_jct" else "finished jobs")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, plt, args)
    write_csv(args.data_out, ["series", "policy", "vc", "avg_jct_hours" if args.metric == "avg_jct" else "jobs",
                              "jobs"], rows)


# ---------------------------------------------------------------- load

def default_x(index, rows):
    for p in index.parameters:
        if p != "seed" and all(is_number(index.value(r, p)) for r in rows):
            return p
    raise InputError(f"{index.path}: no swept numeric parameter other than seed to put on the x axis; "
                     f"pass --x (one of: {', '.join(index.keys())})")


def warn_averaged(index, rows, fixed, prog):
    """Parameters other than seed with several values get averaged too: say so, once."""
    mixed = [p for p in index.parameters if p not in fixed and p != "seed"
             and len({json.dumps(index.value(r, p), sort_keys=True) for r in rows}) > 1]
    if mixed:
        print(f"{prog}: warning: averaging over {', '.join(mixed)} as well as seeds; pick values with --where",
              file=sys.stderr)


def cmd_load(args):
    fmt_check(args)
    index = Index(args.index)
    wheres = parse_where(args.where)
    rows = select(index, wheres, args.prog)
    if args.x is not None:
        index.check_key(args.x, "--x")
    index.check_key(args.series, "--series")
    x = args.x or default_x(index, rows)
    metrics = parse_metrics(args.metrics, index, rows)
    warn_averaged(index, rows, {x, args.series} | {k for k, _ in wheres}, args.prog)

    groups = {}
    for r in rows:
        groups.setdefault(group_key(index.value(r, args.series), index.value(r, x)), []).append(r)
    if args.series == "policy":
        assign_policy_colours(index.policies(rows))
    series_vals = distinct(index.value(r, args.series) for r in rows)
    series_vals.sort(key=policy_key if args.series == "policy" else value_key)
    xs_all = sorted(distinct(index.value(r, x) for r in rows), key=value_key)
    numeric_x = all(is_number(v) for v in xs_all)

    plt = pyplot()
    fig, axes = figure(plt, args, ncols=len(metrics))
    out = []
    for ax, metric in zip(axes, metrics):
        scale = metric_scale(metric)
        for s in series_vals:
            colour, label = series_style(args.series, s)
            pts = []
            for xv in xs_all:
                g = groups.get(group_key(s, xv))
                if g:
                    st = stats([metric_value(index, r, metric) * scale for r in g])
                    pts.append((xv, st))
                    out.append((s, xv, metric, metric_unit(metric), st["mean"], st["min"], st["max"], st["n"]))
            if not pts:
                continue
            pos = [p[0] if numeric_x else xs_all.index(p[0]) for p in pts]
            ax.plot(pos, [p[1]["mean"] for p in pts], marker="o", markersize=4, color=colour, label=label)
            ax.fill_between(pos, [p[1]["min"] for p in pts], [p[1]["max"] for p in pts], color=colour,
                            alpha=0.18, linewidth=0)
        if not numeric_x:
            ax.set_xticks(range(len(xs_all)))
            ax.set_xticklabels([value_text(v) for v in xs_all])
        elif args.logx:
            ax.set_xscale("log")
            ax.set_xticks(xs_all)
            ax.set_xticklabels([value_text(v) for v in xs_all])
        ax.set_xlabel(param_title(x))
        ax.set_ylabel(metric_title(metric))
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    save(fig, plt, args)
    write_csv(args.data_out, ["series", "x", "metric", "unit", "mean", "min", "max", "n"], out)


# ---------------------------------------------------------------- util

def cluster_capacity(result_path, cluster):
    """GPUs per type, in cluster order, as the result records them (config.cluster.gpus_by_type).

    None for a result written before dlsim recorded it; an InputError when it is there but malformed or
    does not add up to config.cluster.gpus."""
    caps = cluster.get("gpus_by_type")
    if caps is None:
        return None
    if not isinstance(caps, dict) or not all(isinstance(k, str) and is_number(v) for k, v in caps.items()):
        raise InputError(f"{result_path}: config.cluster.gpus_by_type: expected an object of GPU counts by type, "
                         f"got {json.dumps(caps)}")
    total = cluster.get("gpus")
    if is_number(total) and sum(caps.values()) != total:
        raise InputError(f"{result_path}: config.cluster.gpus_by_type adds up to {sum(caps.values())} GPUs, "
                         f"but config.cluster.gpus is {total}")
    return caps


def cmd_util(args):
    fmt_check(args)
    doc = load_result(args.result)
    ts = doc.get("timeseries")
    if not isinstance(ts, dict) or not isinstance(ts.get("time"), list) or not isinstance(ts.get("busy_gpus"), dict):
        raise InputError(f"{args.result}: field 'timeseries': expected an object with 'time' and 'busy_gpus'")
    times = ts["time"]
    if not times:
        raise InputError(f"{args.result}: timeseries.time is empty (nothing ran)")
    types = list(ts["busy_gpus"])
    for t in types:
        col = ts["busy_gpus"][t]
        if not isinstance(col, list) or len(col) != len(times) or not all(is_number(v) for v in col):
            raise InputError(f"{args.result}: timeseries.busy_gpus.{t}: expected {len(times)} numbers")
    total = doc["config"].get("cluster", {}).get("gpus")
    caps = cluster_capacity(args.result, doc["config"].get("cluster", {}))

    hours = [t / HOUR for t in times]
    # Each value is a bucket's time-weighted mean: draw it as a step over [start, next start).
    width = hours[1] - hours[0] if len(hours) > 1 else 0.0
    edges = hours + [hours[-1] + width]
    plt = pyplot()
    fig, (ax,) = figure(plt, args, default=(6.4, 3.4))
    base = [0.0] * len(times)
    for t in types:
        top = [b + v for b, v in zip(base, ts["busy_gpus"][t])]
        ax.fill_between(edges, base + base[-1:], top + top[-1:], step="post", color=gpu_colour(t),
                        alpha=0.85, linewidth=0, label=f"{t} busy")
        base = top
    if caps:
        # Capacity lines stack like the areas: a type's busy band stays under its own line.
        acc = 0
        for k, t in enumerate(t for t in types if t in caps):
            acc += caps[t]
            if acc != total:
                ax.axhline(acc, color=gpu_colour(t), linestyle=":", linewidth=1,
                           label=f"{'+ ' if k else ''}{t} capacity ({caps[t]})")
    if is_number(total):
        ax.axhline(total, color="black", linestyle="--", linewidth=1, label=f"cluster: {total:g} GPUs")
    ax.set_xlabel("time (h)")
    ax.set_ylabel("busy GPUs")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(0, None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    save(fig, plt, args)
    header = ["time_hours"] + types + (["cluster_gpus"] if is_number(total) else [])
    header += [f"capacity.{t}" for t in types if caps and t in caps]
    rows = []
    for i, h in enumerate(hours):
        row = [h] + [ts["busy_gpus"][t][i] for t in types] + ([total] if is_number(total) else [])
        rows.append(row + [caps[t] for t in types if caps and t in caps])
    write_csv(args.data_out, header, rows)


# ---------------------------------------------------------------- bars

def policy_means(index, rows, metrics):
    by = {}
    for r in rows:
        by.setdefault(index.value(r, "policy"), []).append(r)
    policies = sorted(by, key=policy_key)
    return policies, {(p, m): stats([metric_value(index, r, m) for r in by[p]]) for p in policies for m in metrics}


def cmd_bars(args):
    fmt_check(args)
    index = Index(args.index)
    rows = select(index, parse_where(args.where), args.prog)
    metrics = parse_metrics(args.metrics, index, rows)
    policies, means = policy_means(index, rows, metrics)
    assign_policy_colours(index.policies(rows))
    if args.baseline not in policies:
        raise InputError(f"--baseline '{args.baseline}': no finished runs of that policy in the selection "
                         f"(policies: {', '.join(map(str, policies))})")
    out = []
    for p in policies:
        for m in metrics:
            mean, base = means[(p, m)]["mean"], means[(args.baseline, m)]["mean"]
            ratio = mean / base if base != 0 else float("nan")
            out.append((p, m, mean, base, ratio, means[(p, m)]["n"]))
    if any(base == 0 for _, _, _, base, _, _ in out):
        zero = sorted({m for _, m, _, base, _, _ in out if base == 0})
        print(f"{args.prog}: warning: baseline mean is 0 for {', '.join(zero)}; no ratio drawn", file=sys.stderr)

    plt = pyplot()
    fig, (ax,) = figure(plt, args, default=(max(4.8, 1.3 * len(metrics) * max(1, len(policies)) / 2 + 2), 3.4))
    width = 0.8 / len(policies)
    for k, p in enumerate(policies):
        pos = [i - 0.4 + width * (k + 0.5) for i in range(len(metrics))]
        vals = [means[(p, m)]["mean"] / means[(args.baseline, m)]["mean"]
                if means[(args.baseline, m)]["mean"] != 0 else 0.0 for m in metrics]
        bars = ax.bar(pos, vals, width * 0.95, color=policy_colour(p), label=policy_label(p))
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in vals], fontsize=6, padding=1)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(metrics)))
    ax.set_xticklabels(metrics)
    ax.set_ylabel(f"relative to {policy_label(args.baseline)} (mean)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, plt, args)
    write_csv(args.data_out, ["policy", "metric", "mean", "baseline_mean", "ratio", "n"], out)


# ---------------------------------------------------------------- table

def fmt_cell(v):
    """Four significant digits, never in exponent form unless tiny."""
    if isinstance(v, int):
        return str(v)
    if v == 0:
        return "0"
    if not math.isfinite(v):
        return str(v)
    mag = math.floor(math.log10(abs(v)))
    if mag >= 4:
        return f"{v:.0f}"
    decimals = 3 - mag
    return f"{v:.3g}" if decimals > 7 else f"{v:.{decimals}f}"


def latex_escape(s):
    return "".join({"_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}",
                    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}.get(c, c)
                   for c in s)


def table_format(args):
    if args.format:
        return args.format
    if args.out:
        ext = os.path.splitext(args.out)[1].lower()
        if ext in (".md", ".markdown"):
            return "md"
        if ext == ".tex":
            return "latex"
        raise InputError(f"-o {args.out}: unknown table format '{ext}' (expected .md or .tex, or pass --format)")
    return "md"


def cmd_table(args):
    fmt = table_format(args)
    check_data_out(args.data_out)
    index = Index(args.index)
    rows = select(index, parse_where(args.where), args.prog)
    metrics = parse_metrics(args.metrics, index, rows)
    if args.by is not None:
        index.check_key(args.by, "--by")
    groups = {}
    for r in rows:
        key = (index.value(r, "policy"), index.value(r, args.by) if args.by else None)
        groups.setdefault(json.dumps(key), (key, []))[1].append(r)
    ordered = sorted(groups.values(), key=lambda g: (policy_key(g[0][0]), value_key(g[0][1])))

    header = ["policy"] + ([args.by] if args.by else []) + ["runs"] + [metric_title(m) for m in metrics]
    data, shown = [], []
    for (policy, byv), rs in ordered:
        means = [math.fsum(metric_value(index, r, m) for r in rs) / len(rs) * metric_scale(m) for m in metrics]
        lead = [policy] + ([byv] if args.by else []) + [len(rs)]
        data.append(lead + means)
        shown.append([policy_label(policy)] + ([value_text(byv)] if args.by else []) + [str(len(rs))]
                     + [fmt_cell(v) for v in means])
    nlead = 2 if args.by else 1
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join(["---"] * nlead + ["---:"] * (len(header) - nlead)) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in shown]
    else:
        lines = ["% dlsim sweep " + latex_escape(index.name) + "; needs \\usepackage{booktabs}",
                 "\\begin{tabular}{" + "l" * nlead + "r" * (len(header) - nlead) + "}", "\\toprule",
                 " & ".join(latex_escape(h) for h in header) + " \\\\", "\\midrule"]
        lines += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in shown]
        lines += ["\\bottomrule", "\\end{tabular}"]
    text = "\n".join(lines) + "\n"
    if args.out:
        make_parent(args.out)
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise InputError(f"-o {args.out}: cannot write ({e.strerror})")
    else:
        sys.stdout.write(text)
    write_csv(args.data_out, header, data)


# ---------------------------------------------------------------- command line

def fmt_check(args):
    """Check the output names before any work, so a typo fails fast."""
    output_format(args.out)
    check_data_out(args.data_out)


def parse_size(text):
    try:
        w, h = (float(v) for v in text.lower().split("x"))
        if w > 0 and h > 0:
            return (w, h)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"'{text}': expected WIDTHxHEIGHT in inches, e.g. 6x3.5")


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def build_parser():
    top = Parser(prog="plot.py", description=__doc__.split("\n")[0],
                 epilog="Run 'plot.py COMMAND --help' for each command's options.")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def figure_options(p, data_out_help):
        p.add_argument("-o", "--out", required=True, metavar="OUT",
                       help="figure file; its extension picks the format: .png, .pdf or .svg")
        p.add_argument("--data-out", metavar="F.csv", help=data_out_help)
        p.add_argument("--title", help="figure title (default: none, as papers set captions)")
        p.add_argument("--size", type=parse_size, metavar="WxH", help="figure size in inches, e.g. 6x3.5")

    def where_option(p):
        p.add_argument("--where", action="append", metavar="KEY=VALUE",
                       help="keep index rows whose parameter KEY equals VALUE (numbers compare as numbers; "
                            "KEY=a,b accepts either; repeat for several keys, all must match)")

    def result_inputs(p, what):
        """Result files given directly and/or through a sweep index filtered by --where."""
        p.add_argument("results", nargs="*", metavar="RESULT.json", help=what)
        p.add_argument("--index", metavar="INDEX.json", help="also plot the result files of this sweep index's rows "
                                                             "(those matching --where)")
        where_option(p)

    def cdf_options(p, axis, column):
        """What every per-job CDF command takes: results with job records, a log axis, the window, a figure."""
        result_inputs(p, "dlsim run results (with job records)")
        p.add_argument("--logx", action="store_true", help=f"log-scale {axis} axis")
        p.add_argument("--all-jobs", action="store_true", help="every finished job, not only those in the run's "
                                                              "measurement window (--measure-jobs/--measure-time)")
        figure_options(p, f"write the plotted points as CSV: series,policy,{column},cdf")

    p = sub.add_parser("cdf", help="JCT CDF per run",
                       description="Empirical CDF of the job completion time of each run's finished jobs in "
                                   "its measurement window (as its summary's JCT figures), in hours. Runs are "
                                   "labelled by policy, plus the config values that tell apart runs of the "
                                   "same policy.")
    cdf_options(p, "JCT", "jct_hours")
    p.set_defaults(func=cmd_cdf)

    p = sub.add_parser("fairness", help="finish-time fairness CDF per run",
                       description="Empirical CDF of each run's finish-time fairness rho (the job records' "
                                   "ftf_rho: JCT / the time it would take alone on an equal 1/N share of its "
                                   "fastest type, N the mean jobs in the system over its lifetime) over its "
                                   "finished jobs in the measurement window, with a dotted line at rho = 1. Runs "
                                   "are labelled as in cdf.")
    cdf_options(p, "rho", "ftf_rho")
    p.set_defaults(func=cmd_fairness)

    p = sub.add_parser("vc", help="per-VC bars (mean JCT or jobs) per run",
                       description="For each virtual cluster of the results' summary.by_vc, one bar per run: "
                                   "the mean JCT (hours) of its finished jobs in the measurement window, or "
                                   "their count. VCs in name order; runs coloured by policy.")
    result_inputs(p, "dlsim run results")
    p.add_argument("--metric", choices=["avg_jct", "jobs"], default="avg_jct", help="bar height (default avg_jct)")
    figure_options(p, "write the plotted numbers as CSV: series,policy,vc,avg_jct_hours|jobs,jobs")
    p.set_defaults(func=cmd_vc)

    p = sub.add_parser("load", help="metrics vs load per policy (mean and min-max over seeds)",
                       description="Each metric against a swept parameter, one line per series: the mean over "
                                   "the remaining parameters (the seeds) with markers, and a min-max band. "
                                   "JCT, queueing delay and makespan are shown in hours. Only runs with "
                                   "status done are used.")
    p.add_argument("index", metavar="INDEX.json", help="sweep index (dlsim sweep writes DIR/index.json)")
    p.add_argument("--x", metavar="PARAM", help="swept parameter on the x axis (default: the first numeric "
                                                "swept parameter other than seed)")
    p.add_argument("--metrics", default="avg_jct,p99_jct", help="comma-separated summary metrics, one subplot "
                                                                "each (default: avg_jct,p99_jct)")
    p.add_argument("--series", default="policy", metavar="PARAM", help="one line per value of this parameter "
                                                                       "(default: policy)")
    p.add_argument("--logx", action="store_true", help="log-scale x axis")
    where_option(p)
    figure_options(p, "write the plotted numbers as CSV: series,x,metric,unit,mean,min,max,n (unit h: hours)")
    p.set_defaults(func=cmd_load)

    p = sub.add_parser("util", help="busy GPUs by type over time",
                       description="Busy GPUs by type over time from the result's timeseries (stacked, each "
                                   "bucket's time-weighted mean), with the cluster size as a dashed line and "
                                   "each type's capacity (config.cluster.gpus_by_type) dotted.")
    p.add_argument("result", metavar="RESULT.json", help="a dlsim run result")
    figure_options(p, "write the plotted numbers as CSV: time_hours,<type>...,cluster_gpus[,capacity.<type>...]")
    p.set_defaults(func=cmd_util)

    p = sub.add_parser("bars", help="metrics per policy relative to a baseline policy",
                       description="For each policy, the mean of each metric over the matching finished runs, "
                                   "divided by the baseline policy's mean; grouped bars with a line at 1.")
    p.add_argument("index", metavar="INDEX.json", help="sweep index")
    p.add_argument("--baseline", required=True, metavar="POLICY", help="policy whose means are 1.0, e.g. fifo")
    p.add_argument("--metrics", default="avg_jct,p99_jct,makespan,gpu_utilization",
                   help="comma-separated summary metrics (default: avg_jct,p99_jct,makespan,gpu_utilization)")
    where_option(p)
    figure_options(p, "write the plotted numbers as CSV: policy,metric,mean,baseline_mean,ratio,n "
                      "(means in the summary's units)")
    p.set_defaults(func=cmd_bars)

    p = sub.add_parser("table", help="table of metric means per policy (Markdown or LaTeX)",
                       description="Mean of each metric over the matching finished runs, per policy (and per "
                                   "value of --by). Times in hours. Markdown or LaTeX (booktabs).")
    p.add_argument("index", metavar="INDEX.json", help="sweep index")
    p.add_argument("-o", "--out", metavar="OUT.md|OUT.tex", help="output file (default: standard output)")
    p.add_argument("--format", choices=["md", "latex"], help="table format (default: from -o's extension, else md)")
    p.add_argument("--metrics", default="avg_jct,p50_jct,p99_jct,avg_queueing_delay,makespan,gpu_utilization",
                   help="comma-separated summary metrics (default: avg_jct,p50_jct,p99_jct,avg_queueing_delay,"
                        "makespan,gpu_utilization)")
    p.add_argument("--by", metavar="PARAM", help="one row per policy and value of this parameter")
    where_option(p)
    p.add_argument("--data-out", metavar="F.csv", help="write the table's rows as CSV at full precision "
                                                       "(policy by name, as in the index)")
    p.set_defaults(func=cmd_table)
    return top


def main(argv=None):
    """Runs one command (argv: the arguments after plot.py; None reads sys.argv) and returns the exit
    status: 0, or 2 for bad input or a usage error, after printing the one-line message to stderr.
    --help prints the usage to stdout and returns 0. Importable: `import plot; plot.main([...])`."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage (--help: 0) or the error (Parser.error: 2)
        return e.code
    args.prog = f"plot.py {args.command}"
    try:
        args.func(args)
    except InputError as e:
        sys.stderr.write(f"{args.prog}: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
