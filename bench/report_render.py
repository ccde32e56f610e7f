"""The HTML report at scale: file size and time to first render in headless Chromium.

Makes a dataset of N rows (default 100,000) from the bundled example (its 30 samples
repeated with distinct ids), scores it with `ragmeter eval --report` on a set of metrics
with evidence (token_f1, rouge_l, bleu, faithfulness, context_recall), and opens the report
in Debian's Chromium (headless, tests/report/chromium.py). Prints the report's size, the
time `eval` took, and the time from navigation start to the page's first complete render
(the page records it in body[data-render-ms]) and to the load event, best of --repeat
loads. Then drives the sample table: sort by score, filter by status, with timings.

With --baseline-build DIR, the same results are also written as a report by DIR's
`ragmeter report` (another build, e.g. of the commit before a change), both reports are
opened in turn --repeat times, and the ratios (this build / baseline) of size and first
render are printed: a ratio from one machine at one load, not two runs hours apart.

Run: ~/.cache/ragmeter/venv/bin/python bench/report_render.py [--rows 100000] [--repeat 3]
         [--baseline-build DIR]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "report"))
from chromium import Chromium  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--build", default=str(REPO / "build"))
    parser.add_argument("--baseline-build", help="another build whose `ragmeter report` to compare with")
    args = parser.parse_args()
    rows = [json.loads(l) for l in (REPO / "examples" / "halueval_rag.jsonl").read_text().splitlines() if l.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "data.jsonl"
        with data.open("w") as out:
            for i in range(args.rows):
                out.write(json.dumps(dict(rows[i % len(rows)], id=f"s{i}")) + "\n")
        html = tmp / "report.html"
        results, summary = tmp / "results.jsonl", tmp / "summary.json"
        start = time.perf_counter()
        subprocess.run([str(Path(args.build) / "ragmeter"), "eval", str(data), "-q", "--metrics",
                        "token_f1,rouge_l,bleu,faithfulness,context_recall", "--report", str(html),
                        "--out", str(results), "--summary", str(summary)], check=True)
        eval_seconds = time.perf_counter() - start
        size = html.stat().st_size
        baseline = None
        if args.baseline_build:
            # `ragmeter report` of the same results by both builds: the time to write the file.
            baseline = tmp / "baseline.html"
            report_seconds = {}
            for name, build, out in (("this build", args.build, tmp / "again.html"),
                                     ("baseline", args.baseline_build, baseline)):
                start = time.perf_counter()
                subprocess.run([str(Path(build) / "ragmeter"), "report", str(results), "--summary",
                                str(summary), "-o", str(out)], check=True)
                report_seconds[name] = time.perf_counter() - start
        browser = Chromium()
        try:
            renders, loads, baseline_renders = [], [], []
            for _ in range(args.repeat):
                if baseline:
                    browser.open(baseline)
                    browser.wait_until("document.body.dataset.rendered === '1'")
                    baseline_renders.append(int(browser.eval("document.body.dataset.renderMs")))
                start = time.perf_counter()
                browser.open(html)
                loads.append(time.perf_counter() - start)
                browser.wait_until("document.body.dataset.rendered === '1'")
                renders.append(int(browser.eval("document.body.dataset.renderMs")))
            assert browser.errors() == [], browser.errors()
            shown = browser.eval("document.getElementById('match-count').textContent")
            start = time.perf_counter()
            browser.eval("document.querySelector('th[data-sort=score]').click()")
            sort_ms = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            browser.eval("""(() => { const s = document.getElementById('filter-status'); s.value = 'ok';
                s.dispatchEvent(new Event('change')); })()""")
            filter_ms = (time.perf_counter() - start) * 1000
        finally:
            browser.close()
        baseline_size = baseline.stat().st_size if baseline else None
    print(f"rows: {args.rows}; table: {shown}")
    print(f"eval --report: {eval_seconds:.1f} s")
    print(f"report size: {size} bytes ({size / 1e6:.1f} MB, {size / args.rows:.0f} bytes per row)")
    print(f"first render: best {min(renders)} ms of {renders} (navigation start to rendered page)")
    print(f"load event: best {min(loads) * 1000:.0f} ms")
    print(f"sort by score: {sort_ms:.0f} ms; filter by status: {filter_ms:.0f} ms")
    if baseline:
        print(f"baseline ({args.baseline_build}): report size {baseline_size} bytes; first render best "
              f"{min(baseline_renders)} ms of {baseline_renders}")
        print(f"ratio this build / baseline: size {size / baseline_size:.4f}, first render "
              f"{min(renders) / min(baseline_renders):.3f}")
        print("ragmeter report (write the file): " +
              "; ".join(f"{name} {seconds:.1f} s" for name, seconds in report_seconds.items()))


if __name__ == "__main__":
    main()
