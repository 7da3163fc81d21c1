#!/usr/bin/python3
"""The docs test: the commands the Markdown pages show run as written, and the figures they quote are current.

  test_docs.py --dlsim BUILD/dlsim --source REPO [--work DIR] [--page PATH]... [--update-fields]

1. Every fenced block whose info string is `sh`, in README.md and in every *.md under sim, policies, traces,
   models, scripts, tests and results, runs with `bash -e` in a fresh temporary folder that looks like the
   repository root after `bash scripts/setup.sh`: `build/dlsim` is a symlink to the binary under test (and
   `build/python`, `build/tests` to the folders beside it, when they exist), each top-level folder of the
   source tree is a symlink to it, and `results/` is a real folder (holding a symlink to each entry of the
   source's results/), so what a block writes stays in the temporary folder. A block is skipped only when
   the line just before its opening fence is `<!-- docs-test: skip (REASON) -->`; the skipped blocks are
   listed with their reasons. A failing block fails the test, naming its page and line.
2. The tour in README.md: the table printed after `build/dlsim run` (every row but wall time and the
   result path) is what `build/dlsim run` prints now. In the page, `…` stands for any text (a version, the
   checkout's path).
3. The fields block of sim/app/RESULTS.md, between `<!-- fields:begin -->` and `<!-- fields:end -->`, is
   what `build/dlsim list fields --markdown` prints, and scripts/plot.py's, between `# fields:begin` and
   `# fields:end`, holds each summary key's axis name and unit as `build/dlsim list fields --json` gives
   them. `--update-fields` writes the binary's output there instead of comparing.
4. Blocks must not write into the source tree: `git status` of the source is the same after the blocks
   as before (when the source is a git checkout).

Relative links between pages that point at no file are listed as warnings.
Debian's /usr/bin/python3, standard library only. Exit 0 when every check passed (or was skipped), 1 else.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PAGE_FOLDERS = ["sim", "policies", "traces", "models", "scripts", "tests", "results"]
SKIP_MARKER = re.compile(r"^\s*<!-- docs-test: skip \((?P<reason>.+)\) -->\s*$")
ANY_MARKER = re.compile(r"^\s*<!--\s*docs-test")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
FIELDS_BEGIN, FIELDS_END = "<!-- fields:begin -->", "<!-- fields:end -->"
RESULTS_PAGE = os.path.join("sim", "app", "RESULTS.md")
PLOT_SCRIPT = os.path.join("scripts", "plot.py")
PLOT_BEGIN, PLOT_END = "# fields:begin", "# fields:end"
BLOCK_TIMEOUT = 120  # seconds; the whole test should stay near a minute


class Block:
    def __init__(self, page, line, info, body, skip):
        self.page, self.line, self.info, self.body, self.skip = page, line, info, body, skip

    @property
    def where(self):
        return f"{self.page}:{self.line}"


def find_pages(source, only):
    if only:
        return [os.path.relpath(os.path.abspath(p), source) if os.path.isabs(p) else p for p in only]
    pages = ["README.md"] if os.path.exists(os.path.join(source, "README.md")) else []
    for folder in PAGE_FOLDERS:
        top = os.path.join(source, folder)
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            pages += [os.path.relpath(os.path.join(root, f), source) for f in sorted(files) if f.endswith(".md")]
    return pages


def parse_blocks(source, page, problems):
    """Every fenced block of a page, with its opening line (1-based) and the skip marker before it, if any."""
    with open(os.path.join(source, page), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i, inside = [], 0, set()
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if ANY_MARKER.search(lines[i]) and not SKIP_MARKER.match(lines[i]):
                problems.append(f"{page}:{i + 1}: malformed marker (expected '<!-- docs-test: skip (REASON) -->'): "
                                f"{lines[i].strip()}")
            i += 1
            continue
        fence, indent, info = m.group("fence"), len(m.group("indent")), m.group("info")
        start, body, i = i, [], i + 1
        while i < len(lines):
            close = lines[i].strip()
            if close and set(close) == {fence[0]} and len(close) >= len(fence):
                break
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i].lstrip())
            inside.add(i)
            i += 1
        else:
            problems.append(f"{page}:{start + 1}: fenced block never closed")
        i += 1
        skip = None
        if start > 0:
            s = SKIP_MARKER.match(lines[start - 1])
            if s:
                skip = s.group("reason")
        lang = info.split()[0] if info else ""
        if skip is not None and lang != "sh":
            problems.append(f"{page}:{start}: a skip marker before a block that is not `sh` ({lang or 'no info'})")
        blocks.append(Block(page, start + 1, lang, "\n".join(body) + "\n", skip))
    # A marker must sit right before a block's fence: any other place is a mistake.
    openings = {b.line for b in blocks}
    for n, line in enumerate(lines, start=1):
        if (n - 1) not in inside and SKIP_MARKER.match(line) and (n + 1) not in openings:
            problems.append(f"{page}:{n}: skip marker not followed by a fenced block")
    return blocks


def make_root(source, dlsim, parent):
    """A temporary folder that looks like the repository root after set-up, writing nowhere else."""
    root = tempfile.mkdtemp(prefix="docs-", dir=parent)
    for name in sorted(os.listdir(source)):
        if name in (".git", "results") or name.startswith("build"):
            continue
        os.symlink(os.path.join(source, name), os.path.join(root, name))
    os.mkdir(os.path.join(root, "results"))
    results = os.path.join(source, "results")
    if os.path.isdir(results):
        for name in sorted(os.listdir(results)):
            os.symlink(os.path.join(results, name), os.path.join(root, "results", name))
    build = os.path.join(root, "build")
    os.mkdir(build)
    os.symlink(dlsim, os.path.join(build, "dlsim"))
    real_build = os.path.dirname(dlsim)
    for name in ("python", "tests"):
        if os.path.isdir(os.path.join(real_build, name)):
            os.symlink(os.path.join(real_build, name), os.path.join(build, name))
    return root


def git_status(source):
    try:
        r = subprocess.run(["git", "-C", source, "status", "--porcelain", "--untracked-files=all"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return set(r.stdout.splitlines()) if r.returncode == 0 else None


def tail(text, n=25):
    lines = text.rstrip("\n").split("\n")
    return "\n".join(("    " + l) for l in lines[-n:]) if text.strip() else "    (nothing)"


def run_block(block, source, dlsim, work):
    root = make_root(source, dlsim, work)
    script = root + ".sh"  # beside the root, not in it: a block may link the root's entries elsewhere
    with open(script, "w") as f:
        f.write(block.body)
    env = dict(os.environ, MPLBACKEND="Agg", DLSIM_DOCS_TEST="1")
    t0 = time.monotonic()
    # The block runs in a session of its own, so that a timeout stops every process it started (a benchmark
    # left running would slow the rest of the suite).
    proc = subprocess.Popen(["bash", "-e", script], cwd=root, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=BLOCK_TIMEOUT)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        rc, err = "timeout", (err or "") + f"\n(no exit after {BLOCK_TIMEOUT} s)"
    seconds = time.monotonic() - t0
    if rc == 0:
        shutil.rmtree(root, ignore_errors=True)
        os.remove(script)
    return rc, out, err, seconds, root


# ---------------------------------------------------------------- the tour's table

def table_rows(text):
    """The console table's rows {label: text} and its first line (dlsim VERSION: policy P on CLUSTER).
    A row is printed as two spaces, the label padded to 12 columns, a space and the text."""
    lines = [l for l in text.split("\n") if l.strip()]
    head = lines[0].strip() if lines else ""
    rows = {}
    for line in lines[1:]:
        if line.startswith("  ") and len(line) > 15:
            rows[line[2:14].strip()] = re.sub(r"\s+", " ", line[15:].strip())
    return head, rows


def matches(pattern, text):
    """`…` in the page's text stands for any text."""
    regex = ".*".join(re.escape(re.sub(r"\s+", " ", part)) for part in pattern.split("…"))
    return re.fullmatch(regex, re.sub(r"\s+", " ", text)) is not None


def check_tour(source, dlsim, work, blocks):
    readme = [b for b in blocks if b.page == "README.md" and b.info != "sh" and
              re.match(r"dlsim \S+: policy \S+ on ", b.body.strip())]
    if not readme:
        return ["README.md: no printed `build/dlsim run` table (a block starting 'dlsim VERSION: policy P on')"]
    block = readme[0]
    root = make_root(source, dlsim, work)
    r = subprocess.run([os.path.join(root, "build", "dlsim"), "run"], cwd=root, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=BLOCK_TIMEOUT)
    if r.returncode != 0:
        return [f"build/dlsim run exited {r.returncode}:\n{tail(r.stderr)}"]
    page_head, page_rows = table_rows(block.body)
    now_head, now_rows = table_rows(r.stdout)
    problems = []
    if not matches(page_head, now_head):
        problems.append(f"{block.where}: first line\n    page: {page_head}\n    now:  {now_head}")
    volatile = {"wall", "result"}
    for label in ["jobs", "JCT (h)", "makespan (h)", "GPU util"]:
        if label not in page_rows:
            problems.append(f"{block.where}: the table has no '{label}' row")
    for label, text in now_rows.items():
        if label in volatile:
            continue
        if label not in page_rows:
            problems.append(f"{block.where}: build/dlsim run prints a '{label}' row the page does not show: {text}")
        elif not matches(page_rows[label], text):
            problems.append(f"{block.where}: row '{label}'\n    page: {page_rows[label]}\n    now:  {text}")
    for label in page_rows:
        if label not in now_rows and label not in volatile:
            problems.append(f"{block.where}: the page shows a '{label}' row that build/dlsim run does not print")
    shutil.rmtree(root, ignore_errors=True)
    return problems


# ---------------------------------------------------------------- the result fields

def check_fields(source, dlsim, update):
    """(problems, note): compares or rewrites RESULTS.md's fields block."""
    path = os.path.join(source, RESULTS_PAGE)
    if not os.path.exists(path):
        return [f"{RESULTS_PAGE}: missing"], ""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin, end = text.find(FIELDS_BEGIN), text.find(FIELDS_END)
    if begin < 0 or end < begin:
        return [f"{RESULTS_PAGE}: no '{FIELDS_BEGIN}' ... '{FIELDS_END}' block"], ""
    r = subprocess.run([dlsim, "list", "fields", "--markdown"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    if r.returncode != 0 and "unknown command 'list'" in r.stderr:
        return [], "skipped: dlsim list not available"
    if r.returncode != 0:
        return [f"build/dlsim list fields --markdown exited {r.returncode}:\n{tail(r.stderr)}"], ""
    generated = r.stdout.strip()
    current = text[begin + len(FIELDS_BEGIN):end].strip()
    if update:
        if current != generated:
            text = text[:begin + len(FIELDS_BEGIN)] + "\n" + generated + "\n" + text[end:]
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return [], f"updated {RESULTS_PAGE} from build/dlsim list fields --markdown"
        return [], "up to date"
    if current != generated:
        line = text[:begin].count("\n") + 1
        a, b = current.split("\n"), generated.split("\n")
        first = next((i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]), 0)
        shown = lambda xs: xs[first] if first < len(xs) else "(end)"  # noqa: E731
        return [f"{RESULTS_PAGE}:{line}: the fields block differs from build/dlsim list fields --markdown at its line "
                f"{first + 1}\n    page: {shown(a)}\n    now:  {shown(b)}\n"
                f"    (rewrite it: /usr/bin/python3 tests/docs/test_docs.py --dlsim build/dlsim --source . "
                f"--update-fields)"], ""
    return [], "ok"


def plot_fields_block(fields):
    """scripts/plot.py's generated table: summary key -> (axis name, unit), for the keys with an axis name."""
    lines = ["SUMMARY_FIELDS = {"]
    for f in fields["summary"]:
        if f["axis"]:
            lines.append(f"    {json.dumps(f['name'])}: ({json.dumps(f['axis'], ensure_ascii=False)}, "
                         f"{json.dumps(f['unit'])}),")
    lines.append("}")
    return "\n".join(lines)


def check_plot_fields(source, dlsim, update):
    """(problems, note): compares or rewrites scripts/plot.py's fields block with `dlsim list fields --json`."""
    path = os.path.join(source, PLOT_SCRIPT)
    if not os.path.exists(path):
        return [f"{PLOT_SCRIPT}: missing"], ""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin, end = text.find(PLOT_BEGIN), text.find(PLOT_END)
    if begin < 0 or end < begin:
        return [f"{PLOT_SCRIPT}: no '{PLOT_BEGIN}' ... '{PLOT_END}' block"], ""
    begin = text.index("\n", begin) + 1  # the marker line says where the block comes from
    r = subprocess.run([dlsim, "list", "fields", "--json"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    if r.returncode != 0:
        return [f"build/dlsim list fields --json exited {r.returncode}:\n{tail(r.stderr)}"], ""
    generated = plot_fields_block(json.loads(r.stdout))
    current = text[begin:end].strip()
    if update:
        if current != generated:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text[:begin] + generated + "\n" + text[end:])
            return [], f"updated {PLOT_SCRIPT} from build/dlsim list fields --json"
        return [], "up to date"
    if current != generated:
        return [f"{PLOT_SCRIPT}: the fields block differs from build/dlsim list fields --json (rewrite it: "
                f"/usr/bin/python3 tests/docs/test_docs.py --dlsim build/dlsim --source . --update-fields)"], ""
    return [], "ok"


# ---------------------------------------------------------------- links

LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def check_links(source, pages):
    missing = []
    for page in pages:
        with open(os.path.join(source, page), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for m in LINK.finditer(text):
            target = m.group("target").split("#")[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(source, os.path.dirname(page), target))):
                missing.append(f"{page}: {target}")
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlsim", required=True, help="the dlsim binary under test")
    ap.add_argument("--source", required=True, help="the repository root")
    ap.add_argument("--work", help="where the temporary roots go (default: the system's temporary folder)")
    ap.add_argument("--page", action="append", help="check only this page (repeatable; relative to --source)")
    ap.add_argument("--update-fields", action="store_true", help=f"rewrite {RESULTS_PAGE}'s fields block")
    a = ap.parse_args()
    source, dlsim = os.path.abspath(a.source), os.path.abspath(a.dlsim)
    if os.environ.get("DLSIM_DOCS_TEST") == "1" and not a.page:
        sys.exit("test_docs.py: run from a page's block, give --page (checking every page would run this block again)")
    if not os.access(dlsim, os.X_OK):
        sys.exit(f"test_docs.py: no executable dlsim at {dlsim}")
    if a.work:
        os.makedirs(a.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dlsim-docs-", dir=a.work)
    t0 = time.monotonic()

    problems, blocks = [], []
    pages = find_pages(source, a.page)
    for page in pages:
        blocks += parse_blocks(source, page, problems)
    shell = [b for b in blocks if b.info == "sh"]
    skipped = [b for b in shell if b.skip is not None]
    before = git_status(source)

    failed = 0
    for b in shell:
        if b.skip is not None:
            continue
        rc, out, err, seconds, root = run_block(b, source, dlsim, work)
        status = "ok" if rc == 0 else f"FAILED (exit {rc})"
        print(f"  {status:<8} {seconds:5.1f} s  {b.where}", flush=True)
        if rc != 0:
            failed += 1
            problems.append(f"{b.where}: the sh block failed (exit {rc}), run in {root}\n  block:\n"
                            f"{tail(b.body, 40)}\n  stdout:\n{tail(out)}\n  stderr:\n{tail(err)}")

    after = git_status(source)
    if before is not None and after is not None and after - before:
        problems.append("the blocks wrote into the source tree (write to the current folder instead):\n" +
                        "\n".join("    " + s for s in sorted(after - before)))

    if not a.page or "README.md" in a.page:
        tour = check_tour(source, dlsim, work, blocks)
        problems += tour
        print(f"tour (README.md's build/dlsim run table): {'ok' if not tour else 'FAILED'}")
    if not a.page or RESULTS_PAGE in a.page or a.update_fields:
        field_problems, note = check_fields(source, dlsim, a.update_fields)
        problems += field_problems
        print(f"fields ({RESULTS_PAGE} against build/dlsim list fields --markdown): "
              f"{note if not field_problems else 'FAILED'}")
        plot_problems, note = check_plot_fields(source, dlsim, a.update_fields)
        problems += plot_problems
        print(f"fields ({PLOT_SCRIPT} against build/dlsim list fields --json): "
              f"{note if not plot_problems else 'FAILED'}")

    for link in check_links(source, pages):
        print(f"warning: link to a missing file: {link}")

    print(f"skipped blocks ({len(skipped)}):")
    for b in skipped:
        print(f"  {b.where} ({b.skip})")
    ran = len(shell) - len(skipped)
    print(f"docs: {len(pages)} pages, {ran} sh blocks run ({failed} failed), {len(skipped)} skipped, "
          f"{time.monotonic() - t0:.1f} s")
    if problems:
        print("\nproblems:")
        for p in problems:
            print(f"- {p}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
