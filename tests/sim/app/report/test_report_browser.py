#!/usr/bin/env python3
"""`dlsim report` in a real browser: headless Chromium opens the pages from file:// and is driven through the
DevTools protocol (cdp.py), with no network and no package beyond the standard library.

A hand-checkable run: srtf, the bundled trace's first 30 jobs, on 8 V100 GPUs in 2 nodes, so short jobs preempt
long ones. The page must show 30 jobs in its table, rows that follow the records and a scroll, a search and a
sort; a real mouse click on a job's slice in the Gantt must show that job's timeline with one start line per
start of the event log and one preemption line per preempt line; the screenshot must not be blank. Then the
page without an event log, and a sweep's page with its runs' pages linked. Exit 77 (skipped) without Chromium.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

SMALL_CLUSTER = {"gpu_types": {"V100": {}}, "node_types": {"n": {"gpu_type": "V100", "gpus": 4}},
                 "racks": [{"node_type": "n", "nodes": 2}]}


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def check(condition, what):
    if not condition:
        sys.exit(f"test_report_browser: FAILED: {what}")
    print(f"ok: {what}")


def with_checksum(r):
    """A result's text with its checksum recomputed (sim/app/RESULTS.md, "Checksum")."""
    r = dict(r, run={k: v for k, v in r["run"].items() if k != "checksum"})
    text = json.dumps(r, separators=(",", ":"))
    prefix = text[:-2] + ","
    return prefix + '"checksum":"sha256:' + hashlib.sha256(prefix.encode()).hexdigest() + '"}}\n'


def with_reasons(result, events):
    """A hand-made variant of a run with the pending-reason and preemption-cause fields (see the report's
    README): per job pending_reasons splitting its pending_time, summary.pending_reasons,
    timeseries.queued_by_reason, and an event log with arrive, wait and wait_rest lines and preempt causes.
    Returns the result's text (with its checksum recomputed) and the event log's lines. The engine's own
    reasons and causes are replaced by these, whose every value the test knows."""
    r = json.loads(json.dumps(result))
    events = [{k: v for k, v in e.items() if k not in ("cause", "by")} for e in events
              if e["event"] not in ("arrive", "wait", "wait_rest")]
    for j in r["jobs"]:
        p = j["pending_time"] or 0
        j["pending_reasons"] = {"resources": p * 0.75, "priority": p * 0.25} if p > 0 else {}
    hours = sum(j["pending_time"] or 0 for j in r["jobs"]) / 3600
    r["summary"]["pending_reasons"] = {"resources": {"job_hours": hours * 0.75, "gpu_hours": hours},
                                       "priority": {"job_hours": hours * 0.25, "gpu_hours": hours / 3}}
    q = r["timeseries"]["queued_jobs"]
    r["timeseries"]["queued_by_reason"] = {"resources": [x * 0.75 for x in q], "priority": [x * 0.25 for x in q]}
    text = with_checksum(r)
    submit = {j["job_id"]: j["submit_time"] for j in r["jobs"]}
    lines, arrived = [], set()
    for k, e in enumerate(events):
        for jid, t in submit.items():  # arrivals before any line at or after their time
            if jid not in arrived and t <= e["time"]:
                arrived.add(jid)
                lines.append({"time": t, "event": "arrive", "job_id": jid, "gpus": 1})
                if not any(x["event"] == "start" and x["job_id"] == jid and x["time"] == t for x in events):
                    lines.append({"time": t, "event": "wait", "job_id": jid, "reason": "resources"})
        e = dict(e)
        if e["event"] == "preempt":
            by = next((x["job_id"] for x in events[k:] if x["time"] == e["time"] and x["event"] == "start"), None)
            e.update({"cause": "displaced", "by": by} if by else {"cause": "policy"})
            lines.append(e)
            lines.append({"time": e["time"], "event": "wait", "job_id": e["job_id"], "rest": True})
            lines.append({"time": e["time"], "event": "wait_rest", "reason": "head_of_line", "behind": "0"})
            continue
        lines.append(e)
    return text, lines


def fmt_time(s):
    return f"{round(s * 1000) / 1000:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.dlsim = os.path.abspath(args.dlsim)
    chromium = cdp.find_chromium()
    if chromium is None:
        print("test_report_browser: skipped: no chromium on PATH (scripts/setup.sh installs it)")
        return 77
    os.makedirs(args.work, exist_ok=True)
    os.chdir(args.work)
    with open("small.json", "w") as f:
        json.dump(SMALL_CLUSTER, f)
    run([args.dlsim, "run", "--max-jobs", "30", "--policy", "srtf", "--cluster", "small.json", "--event-log",
         "events.jsonl", "--out", "run.json"])
    run([args.dlsim, "report", "run.json", "--event-log", "events.jsonl", "-o", "report.html"])
    run([args.dlsim, "report", "run.json", "-o", "lifetimes.html"])

    # What the page must show, from the files themselves.
    result = json.load(open("run.json"))
    jobs = result["jobs"]
    events = [json.loads(line) for line in open("events.jsonl")]
    starts = {j["job_id"]: 0 for j in jobs}
    preempts = dict(starts)
    for e in events:
        if e["event"] == "start":
            starts[e["job_id"]] += 1
        elif e["event"] == "preempt":
            preempts[e["job_id"]] += 1
    check(len(jobs) == 30, "the run has 30 job records")
    # The most preempted job: srtf on 8 GPUs preempts the long ones several times.
    victim = max(jobs, key=lambda j: (j["preemptions"], -jobs.index(j)))
    vid = victim["job_id"]
    check(victim["preemptions"] >= 2 and victim["migrations"] == 0, f"job {vid} was preempted "
          f"{victim['preemptions']} times, none a move")
    check(starts[vid] == victim["preemptions"] + 1 and preempts[vid] == victim["preemptions"],
          f"the event log has {starts[vid]} starts and {preempts[vid]} preemptions of job {vid}")

    with cdp.Browser(chromium, 1400, 1000) as b:
        b.open_page()
        b.navigate("file://" + os.path.abspath("report.html"))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=30)
        check(not b.evaluate("window.dlsimError || ''"), "the page loads without a script error")
        check(b.evaluate("document.getElementById('table-count').textContent") == "30 of 30 jobs",
              "the table counts 30 of 30 jobs")
        rows = b.evaluate("[...document.querySelectorAll('#table-rows .vrow')].map(r => "
                          "[...r.children].map(c => c.textContent))")
        visible = b.evaluate("Math.ceil(document.getElementById('table-body').clientHeight / 20) + 2")
        check(len(rows) == min(30, visible), f"the table draws only the {len(rows)} rows in view (virtualised)")
        first = jobs[0]
        check(rows[0][:5] == [first["job_id"], first["state"], str(first["num_gpus"]), first["gpu_type"],
                              fmt_time(first["submit_time"])], f"the first row is job {first['job_id']}: {rows[0][:5]}")
        b.evaluate("(() => { const t = document.getElementById('table-body'); t.scrollTop = t.scrollHeight; "
                   "t.dispatchEvent(new Event('scroll')); })()")
        b.wait_for("new Promise(r => requestAnimationFrame(() => r(true)))")
        last = b.evaluate("[...document.querySelectorAll('#table-rows .vrow')].pop().children[0].textContent")
        check(last == jobs[-1]["job_id"], f"scrolled to the end, the last row is job {jobs[-1]['job_id']}")
        # Search: the ids that contain "2".
        b.evaluate("(() => { const s = document.getElementById('search'); s.value = '2'; "
                   "s.dispatchEvent(new Event('input')); })()")
        want = sum("2" in j["job_id"] for j in jobs)
        check(b.evaluate("document.getElementById('table-count').textContent") == f"{want} of 30 jobs",
              f"searching '2' keeps the {want} jobs whose id contains it")
        b.evaluate("(() => { const s = document.getElementById('search'); s.value = ''; "
                   "s.dispatchEvent(new Event('input')); })()")
        # Sort by JCT, longest first (two clicks on the header).
        b.evaluate("[...document.querySelectorAll('#table-head span')].find(s => s.textContent.startsWith('JCT'))"
                   ".click()")
        b.evaluate("[...document.querySelectorAll('#table-head span')].find(s => s.textContent.startsWith('JCT'))"
                   ".click()")
        longest = max(jobs, key=lambda j: j["jct"])
        top = b.evaluate("document.querySelector('#table-rows .vrow').children[0].textContent")
        check(top == longest["job_id"], f"sorted by JCT descending, the first row is job {longest['job_id']}")

        # A real mouse click on the middle of the victim's first slice in the Gantt.
        point = b.evaluate(f"""(() => {{
            const j = ids().indexOf({json.dumps(vid)});
            for (let L = 0; L < META.gantt.lanes.length; ++L)
              for (let i = A.lane_offsets[L]; i < A.lane_offsets[L + 1]; ++i)
                if (A.slice_job[i] === j) {{
                  const r = gantt.canvas.getBoundingClientRect(), pw = r.width - gantt.left;
                  const t = (A.slice_start[i] + A.slice_end[i]) / 2;
                  return {{x: r.left + gantt.left + (t - gantt.t0) / (gantt.t1 - gantt.t0) * pw,
                           y: r.top + (L - gantt.l0 + 0.5) * gantt.lanePx, top: r.top}};
                }}
            return null; }})()""")
        check(point is not None, f"job {vid} has slices in the Gantt")
        b.evaluate(f"window.scrollTo(0, {point['top']} - 100)")
        scrolled = b.evaluate("window.scrollY")
        # The wheel zooms time around the mouse (the time under it stays put); a drag pans; reset restores.
        view = "[gantt.t0, gantt.t1, gantt.l0]"
        before = b.evaluate(view)
        x, y = round(point["x"]), round(point["y"] - scrolled)  # mouse events carry whole CSS pixels
        t_at = f"gantt.t0 + ({x} - gantt.canvas.getBoundingClientRect().left - gantt.left) / " \
               "(gantt.canvas.getBoundingClientRect().width - gantt.left) * (gantt.t1 - gantt.t0)"
        t_before = b.evaluate(t_at)
        b.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -400})
        b.wait_for("new Promise(r => requestAnimationFrame(() => r(true)))")
        after = b.evaluate(view)
        check(after[1] - after[0] < 0.7 * (before[1] - before[0]) and abs(b.evaluate(t_at) - t_before) < 1e-6 *
              (before[1] - before[0]) + 1e-9, f"the wheel zooms in around the mouse: span {before[1] - before[0]:.0f} s -> "
              f"{after[1] - after[0]:.0f} s (time under the mouse {t_before:.1f} -> {b.evaluate(t_at):.1f})")
        for kind, dx in (("mousePressed", 0), ("mouseMoved", -120), ("mouseReleased", -120)):
            b.send("Input.dispatchMouseEvent", {"type": kind, "x": x + dx, "y": y, "button": "left", "clickCount": 1})
        panned = b.evaluate(view)
        shift = (after[1] - after[0]) * 120 / b.evaluate("gantt.canvas.getBoundingClientRect().width - gantt.left")
        check(abs((panned[0] - after[0]) - shift) < 1e-6 * shift and not b.evaluate("!!document.getElementById('job-title')"),
              "a drag pans by the distance dragged and selects nothing")
        b.evaluate("document.getElementById('gantt-reset').click()")
        b.wait_for("new Promise(r => requestAnimationFrame(() => r(true)))")
        check(b.evaluate(view) == before, "reset zoom restores the whole run")
        b.click(x, y)
        b.wait_for("!!document.getElementById('job-title')", timeout=10)
        title = b.evaluate("document.getElementById('job-title').textContent")
        check(title == f"job {vid}", f"clicking its slice shows {title!r}")
        n_start = b.evaluate("document.querySelectorAll('#job-timeline li.ev-start').length")
        n_preempt = b.evaluate("document.querySelectorAll('#job-timeline li.ev-preempt').length")
        n_finish = b.evaluate("document.querySelectorAll('#job-timeline li.ev-finish').length")
        check(n_start == starts[vid] and n_preempt == preempts[vid] and n_finish == 1,
              f"its timeline has {n_start} start lines, {n_preempt} preemptions and {n_finish} finish")
        gpu_lines = b.evaluate("[...document.querySelectorAll('#job-timeline li.ev-start')].map(l => l.textContent)")
        check(all("V100: n" in t and "GPU" in t for t in gpu_lines), f"each start names its GPUs: {gpu_lines[0]!r}")
        # A click on a table row selects that job too.
        b.evaluate("document.querySelector('#table-rows .vrow').click()")
        check(b.evaluate("document.getElementById('job-title').textContent") == f"job {longest['job_id']}",
              "clicking a table row shows that job")
        b.evaluate("window.scrollTo(0, 0)")
        png = b.screenshot()
        with open("report.png", "wb") as f:
            f.write(png)
        colours = cdp.png_colours(png)
        check(len(png) > 20000 and colours > 50, f"the screenshot is not blank ({len(png)} bytes, {colours} colours)")

        # Without an event log: lifetimes by GPU type, said so on the page.
        b.navigate("file://" + os.path.abspath("lifetimes.html"))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=30)
        check(not b.evaluate("window.dlsimError || ''"), "the page without an event log loads")
        note = b.evaluate("document.getElementById('gantt-note').textContent")
        check("No event log" in note and "preemptions" in note, "it says its lanes are lifetimes, not GPUs")
        b.evaluate(f"selectJob(ids().indexOf({json.dumps(vid)}))")
        check(b.evaluate("document.querySelectorAll('#job-timeline li.ev-start').length") == 1,
              "a job's timeline shows its first start only")

    # A sweep's page, with each run's page written and linked (--run-reports).
    with open("sweep.json", "w") as f:
        json.dump({"name": "two", "base": {"max_jobs": 20, "cluster": "small.json"},
                   "grid": {"policy": ["fifo", "srtf"]}}, f)
    run([args.dlsim, "sweep", "sweep.json", "--jobs", "1", "--out", "two"])
    run([args.dlsim, "report", "two", "--run-reports", "-o", "two.html"])
    index = json.load(open("two/index.json"))
    with cdp.Browser(chromium, 1200, 800) as b:
        b.open_page()
        b.navigate("file://" + os.path.abspath("two.html"))
        b.wait_for("window.dlsimReady", timeout=30)
        runs = b.evaluate("[...document.querySelectorAll('#run-table tr.run')].map(r => r.dataset.run)")
        check(runs == [r["run_id"] for r in index["runs"]], "the sweep's page lists its 2 runs in index order")
        links = b.evaluate("[...document.querySelectorAll('#run-table tr.run a')].map(a => a.getAttribute('href'))")
        check(links == [f"two/runs/{r['run_id']}.html" for r in index["runs"]] and all(os.path.exists(p) for p in links),
              "each run links to its own page")
        check(b.evaluate("document.querySelectorAll('#figures canvas').length") >= 3, "the figures are drawn")
        b.navigate("file://" + os.path.abspath(links[1]))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=30)
        check(b.evaluate("document.getElementById('table-count').textContent") == "20 of 20 jobs",
              "a linked run page opens with its 20 jobs")
    # The fields of pending reasons and preemption causes: a report of the hand-made variant shows them.
    text, lines = with_reasons(result, events)
    with open("reasons.json", "w") as f:
        f.write(text)
    with open("reasons.jsonl", "w") as f:
        f.writelines(json.dumps(e) + "\n" for e in lines)
    run([args.dlsim, "report", "reasons.json", "--event-log", "reasons.jsonl", "-o", "reasons.html"])
    plain = json.loads(json.dumps(result))  # a result without the series (written before they existed)
    del plain["timeseries"]["queued_by_reason"]
    with open("plain.json", "w") as f:
        f.write(with_checksum(plain))
    run([args.dlsim, "report", "plain.json", "-o", "plain.html"])
    displaced = [e for e in lines if e["event"] == "preempt" and e["job_id"] == vid]
    with cdp.Browser(chromium, 1400, 1000) as b:
        b.open_page()
        b.navigate("file://" + os.path.abspath("reasons.html"))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=30)
        check(not b.evaluate("window.dlsimError || ''"), "the page with pending reasons loads")
        check(b.evaluate("document.querySelectorAll('#reasons-table tr').length") == 3,
              "the summary's pending reasons are a table of 2 reasons")
        b.evaluate(f"selectJob(ids().indexOf({json.dumps(vid)}))")
        texts = b.evaluate("[...document.querySelectorAll('#job-timeline li.ev-preempt')].map(l => l.textContent)")
        want = [f"preempted (displaced by {e['by']})" for e in displaced]
        check([t.split(" s ", 1)[1] for t in texts] == want, f"each preemption names its cause: {texts[0]!r}")
        check(b.evaluate("document.querySelectorAll('#job-timeline li.ev-submit').length") == 1,
              "its arrival is on its timeline")
        waits = b.evaluate("[...document.querySelectorAll('#job-timeline li.ev-wait')].map(l => l.textContent)")
        check(any("queue: head_of_line behind 0" in w for w in waits),
              "after a preemption it follows the queue's common reason (wait_rest)")
        check(b.evaluate("document.querySelectorAll('#job-reasons tr').length") == 2,
              "its record's pending reasons are listed")
        coloured = """(id => { const c = document.getElementById(id), d = c.getContext('2d')
            .getImageData(0, 0, c.width, c.height).data; let n = 0;
            for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i+1], d[i+2]) - Math.min(d[i], d[i+1], d[i+2]) > 60) ++n;
            return n; })"""
        check(b.evaluate(coloured + "('ts-reasons')") > 200, "the queued-by-reason series are drawn")
        b.navigate("file://" + os.path.abspath("report.html"))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=30)
        check(b.evaluate(coloured + "('ts-reasons')") > 200, "the run's own queued-by-reason series are drawn")
        b.navigate("file://" + os.path.abspath("plain.html"))
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=30)
        check(b.evaluate(coloured + "('ts-reasons')") == 0, "without them the chart says so and draws no series")
    print("test_report_browser: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
