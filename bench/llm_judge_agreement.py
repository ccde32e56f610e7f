#!/usr/bin/env python3
"""The LLM judge against people, beside ragas, with the same model on the same rows.

Three judges, the same local server (through bench/counting_proxy.py), the same rows:
ragmeter's compact plan, ragmeter's `--plan ragas`, and ragas 0.4.3 itself; plus ragmeter's
offline judge and plain baselines on the same rows (no server) for reference. Normally
started by bench/llm_judge_agreement.sh (venv, server). Subcommands:

  run     builds the rows, starts the proxy, runs every tool part by part (each part: the
          tools one after the other on the same rows) and rewrites the report after every
          phase, so a run cut short still yields figures for the parts done. --resume keeps
          the phases an earlier run with the same --outdir finished.
  report  reads an output directory and prints the tables (report.md); writes report.json.

Data: the TEST halves of the splits of bench/offline_judge_quality.py (imported, not copied),
or with --split dev the DEV halves (for tuning a judge's prompts and checks; the test halves
are read once the tuning is done), the first n items of each in a fixed order (file order
for HaluEval, instance_id order for RAGChecker), never picked; --halueval-skip N takes
HaluEval's items N+1 to N+n instead, so that items not read before can be added to a
measurement (parts are named by their place in the split: the part directories of two runs
can be put in one --outdir and reported together).
  HaluEval QA: per item the right and the hallucinated answer, the item's passage as the one
    retrieved context (with --halueval-passages K, among K-1 passages of other items on its
    topic, at position item mod K); faithfulness. Pairwise accuracy (right above hallucinated, a tie half)
    with a 95% bootstrap interval over items, and AUROC (right = positive); each tool's
    pairwise accuracy minus ragas's on the pairs both scored, with a paired 95% bootstrap
    interval (the pairs resampled together), since whether a tool agrees at least as well as
    ragas is a question about the difference.
  RAGChecker human labels: per item both systems' responses against `gt_answer`;
    factual_correctness and answer_correctness. delta = score(model2) - score(model1) against
    correctness_label and overall_label, one point per annotation (two per item), Pearson and
    Spearman (scipy.stats) with 95% percentile bootstrap intervals over items (numpy, 1,000
    resamples, seed 11; both annotations of a drawn item taken), and pairwise agreement (sign
    of delta = sign of label, a zero delta half). A delta a tool could not compute (a score
    failed or NaN) is replaced by the median of its other deltas, as RAGChecker does, and
    counted.
Per tool and part: HTTP requests, prompt and completion tokens (the proxy), wall time of the
process (ragas: also its evaluate() call alone), server CPU seconds.

Run in a python with numpy and scipy (the ragas venv has both).
"""

import argparse
import functools
import gzip
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import offline_judge_quality as ojq  # noqa: E402  (the splits and the data paths)
import ragas_side_by_side as sbs  # noqa: E402  (proxy, phases, the ragas runner)

TOOLS = ["ragas", "compact", "ragas_plan"]  # judged through the server, in this order
OFFLINE = "offline"  # ragmeter's offline judge and the baselines, no server
TOOL_NAMES = {"ragas": "ragas 0.4.3", "compact": "ragmeter, compact plan",
              "ragas_plan": "ragmeter, --plan ragas", "offline": "ragmeter, offline judge (no model)"}
SETS = {
    "halueval": {"judged": ["faithfulness"], "baselines": ["k_precision"]},
    # long passages (bench/data/long_passages.jsonl, issue 39): pairwise on faithfulness and
    # context_recall, and every metric's mean on the right answers' rows
    "long": {"judged": ["faithfulness", "context_recall", "context_precision"], "baselines": []},
    "ragchecker": {"judged": ["factual_correctness", "answer_correctness"], "baselines": ["token_f1"]},
}
LABELS = ["correctness_label", "overall_label"]


# ----------------------------------------------------------------------------- rows

def halueval_items(n, split="test", skip=0):
    """Pairs skip+1 to skip+n of the split, in file order: --halueval-skip measures pairs not
    read before without reading the first ones again."""
    items = [json.loads(line) for line in open(ojq.HALUEVAL, encoding="utf-8")]
    chosen = [(i, it) for i, it in enumerate(items) if ojq.split_of("halueval", it["question"]) == split]
    return chosen[skip:skip + n]


def halueval_contexts(index, item, passages, everything, near):
    """The retrieved contexts of HaluEval item `index`: its passage alone, or with
    --halueval-passages K its passage among the K-1 passages of other items closest to its
    question (offline_judge_quality.distractors), at position index % K, so that the
    passage holding the answer is not always the first."""
    if passages <= 1:
        return [item["knowledge"]]
    contexts = [everything[k]["knowledge"] for k in near[index][:passages - 1]]
    contexts.insert(index % passages, item["knowledge"])
    return contexts


@functools.lru_cache(maxsize=None)
def halueval_with_distractors(passages):
    """Every HaluEval item and, with passages > 1, each item's distractors: read and ranked
    once per run, not once per part."""
    everything = [json.loads(line) for line in open(ojq.HALUEVAL, encoding="utf-8")]
    return everything, (ojq.distractors(everything, passages - 1) if passages > 1 else None)


def halueval_rows(items, passages=1):
    everything, near = halueval_with_distractors(passages)
    rows = []
    for index, item in items:
        contexts = halueval_contexts(index, item, passages, everything, near)
        for kind in ("right", "hallucinated"):
            rows.append({"id": f"h{index}:{kind}", "user_input": item["question"],
                         "response": item[f"{kind}_answer"], "retrieved_contexts": contexts})
    return rows


LONG = os.path.join(HERE, "data", "long_passages.jsonl")
LONG_PAIRED = ["faithfulness", "context_recall"]


def long_items(n, split="test", skip=0):
    """Items skip+1 to skip+n of the long-passage set's split, in file order."""
    items = [json.loads(line) for line in open(LONG, encoding="utf-8")]
    chosen = [(it["id"], it) for it in items if it["split"] == split]
    return chosen[skip:skip + n]


def long_rows(items):
    """Per item two rows whose response is also their reference: the right answer (the
    gold passage states it: faithfulness and context_recall should be near 1) and the wrong
    one (a fact or two changed: both should be lower)."""
    rows = []
    for item_id, item in items:
        for kind in ("right", "wrong"):
            rows.append({"id": f"{item_id}:{kind}", "user_input": item["user_input"],
                         "response": item[kind], "reference": item[kind],
                         "retrieved_contexts": item["retrieved_contexts"]})
    return rows


def ragchecker_annotations():
    with gzip.open(ojq.RAGCHECKER, "rt", encoding="utf-8") as f:
        return json.load(f)


def ragchecker_items(n, split="test"):
    first = {}
    for a in ragchecker_annotations():
        first.setdefault(a["instance_id"], a)
    ids = [i for i in sorted(first) if ojq.split_of("ragchecker", i) == split]
    return [(i, first[i]) for i in ids[:n]]


def ragchecker_rows(items):
    rows = []
    for iid, item in items:
        for model in ("model1", "model2"):
            rows.append({"id": f"r{iid}:{model}", "user_input": item["query"],
                         "response": item[model]["response"], "reference": item["gt_answer"]})
    return rows


# ----------------------------------------------------------------------------- running

def ragmeter_argv(a, data, partdir, tool, metrics, proxy):
    argv = [a.ragmeter, "eval", data, "--metrics", ",".join(metrics),
            "--out", os.path.join(partdir, f"{tool}_out.jsonl"),
            "--summary", os.path.join(partdir, f"{tool}_summary.json"),
            "--bootstrap-resamples", "0", "--threads", "1", "-q"]
    if tool == OFFLINE:
        return argv + ["--judge", "offline", "--embedder", "offline", "--offline-score-withdrawn"]
    argv += ["--judge", "openai", "--judge-url", f"{proxy}/v1", "--judge-model", a.model,
             "--embedder", "openai", "--embedder-url", f"{proxy}/v1", "--embedder-model", a.embed_model,
             "--concurrency", str(a.workers), "--timeout", str(a.timeout),
             "--judge-context-tokens", str(a.context_tokens),
             "--traces", os.path.join(partdir, f"{tool}_traces.jsonl")]
    argv += ["--cache", a.judge_cache] if getattr(a, "judge_cache", None) else ["--cache-mode", "off"]
    if tool == "ragas_plan":
        argv += ["--plan", "ragas"]
    return argv


def run_part(a, part, proxy, server_pid):
    partdir = os.path.join(a.outdir, part["name"])
    os.makedirs(partdir, exist_ok=True)
    data = os.path.join(partdir, "dataset.jsonl")
    with open(data, "w", encoding="utf-8") as f:
        for row in part["rows"]:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    before = sbs.load_json(os.path.join(partdir, "part.json"))
    if before and before["items"] != part["items"]:  # another split into parts: start it again
        for name in os.listdir(partdir):
            if name.startswith("phase_"):
                os.remove(os.path.join(partdir, name))
    sbs.write_json(os.path.join(partdir, "part.json"), {k: v for k, v in part.items() if k != "rows"})
    judged = SETS[part["set"]]["judged"]
    for tool in [OFFLINE] + [t for t in a.tools.split(",") if t]:
        if a.resume and os.path.exists(os.path.join(partdir, f"phase_{tool}.json")):
            if (tool not in (OFFLINE, "ragas") and a.llm_python and a.model_file
                    and not os.path.exists(os.path.join(partdir, f"{tool}_tokens.json"))):
                count_trace_tokens(a, partdir, tool)
            continue
        env = dict(os.environ, OPENAI_API_KEY="sk-local-dummy", RAGAS_DO_NOT_TRACK="true")
        if tool == "ragas":
            argv = [a.ragas_python, os.path.join(HERE, "ragas_side_by_side.py"), "ragas", "--data", data,
                    "--llm-url", f"{proxy}/v1", "--model", a.model,
                    "--embed-url", f"{proxy}/v1", "--embed-model", a.embed_model,
                    "--workers", str(a.workers), "--timeout", str(a.timeout), "--metrics", ",".join(judged),
                    "--out", os.path.join(partdir, "ragas_scores.jsonl"),
                    "--meta", os.path.join(partdir, "ragas_meta.json")]
        else:
            metrics = judged + (SETS[part["set"]]["baselines"] if tool == OFFLINE else [])
            argv = ragmeter_argv(a, data, partdir, tool, metrics, proxy)
        sbs.run_phase(tool, argv, proxy, server_pid if tool != OFFLINE else None, partdir, env)
        if tool not in (OFFLINE, "ragas") and a.llm_python and a.model_file:
            count_trace_tokens(a, partdir, tool)
        cmd_report(argparse.Namespace(outdir=a.outdir, quiet=True))


def count_trace_tokens(a, partdir, tool):
    """ragmeter streams its replies and llama-cpp-python's server sends no usage in a stream,
    so the proxy sees no tokens: count them from the traces with the model's tokenizer."""
    traces = os.path.join(partdir, f"{tool}_traces.jsonl")
    if not os.path.exists(traces):
        return
    proc = subprocess.run([a.llm_python, os.path.join(HERE, "trace_tokens.py"), "--model", a.model_file, traces],
                          capture_output=True, text=True)
    if proc.returncode == 0 and proc.stdout.strip():
        sbs.write_json(os.path.join(partdir, f"{tool}_tokens.json"), json.loads(proc.stdout.strip().splitlines()[-1]))
    else:
        print(f"trace_tokens failed for {traces}: {proc.stderr[-500:]}", file=sys.stderr)


def plan_parts(a):
    """HaluEval's parts, then RAGChecker's. HaluEval's rows are short (a question, a short
    answer, one passage); RAGChecker's are long (references of about 3,000 characters), and one
    of its items costs ragas on the local model as much as many HaluEval pairs, so a run cut
    short keeps the larger sample of the cheaper set."""
    parts = []
    for set_name, items, size, make_rows, first in (
            ("halueval", halueval_items(a.halueval, a.split, a.halueval_skip), a.halueval_part,
             lambda chunk: halueval_rows(chunk, a.halueval_passages), a.halueval_skip),
            ("ragchecker", ragchecker_items(a.ragchecker, a.split), a.ragchecker_part,
             ragchecker_rows, 0),
            ("long", long_items(a.long, a.split, a.long_skip), a.long_part, long_rows, a.long_skip)):
        for k in range(0, len(items), size):
            chunk = items[k:k + size]
            # parts are numbered by their place in the split, so that the parts of runs with
            # different --halueval-skip can be put in one directory and reported together
            number = (first + k) // size + 1
            parts.append({"name": f"{set_name}-{number:02d}", "set": set_name,
                          "items": [i for i, _ in chunk], "rows": make_rows(chunk)})
    return parts


def cmd_run(a):
    os.makedirs(a.outdir, exist_ok=True)
    parts = plan_parts(a)
    upstream = a.llm_url.rstrip("/")
    upstream = upstream[:-3] if upstream.endswith("/v1") else upstream
    proxy_proc, port = sbs.start_proxy(upstream, a.outdir)
    proxy = f"http://127.0.0.1:{port}"
    server_pid = None
    if a.server_pid_file and os.path.exists(a.server_pid_file):
        server_pid = int(open(a.server_pid_file).read().strip())
    settings = {k: v for k, v in vars(a).items() if k != "func"}
    settings.update(date=time.strftime("%Y-%m-%d %H:%M:%S %z"), nproc=os.cpu_count(),
                    parts=[p["name"] for p in parts])
    sbs.write_json(os.path.join(a.outdir, "settings.json"), settings)
    try:
        for part in parts:
            print(f"[{time.strftime('%H:%M:%S')}] {part['name']}: {len(part['rows'])} rows",
                  file=sys.stderr, flush=True)
            run_part(a, part, proxy, server_pid)
    finally:
        try:
            sbs.http_json(f"{proxy}/__proxy/shutdown", "POST")
            proxy_proc.wait(timeout=10)
        except Exception:
            proxy_proc.kill()
    cmd_report(argparse.Namespace(outdir=a.outdir, quiet=False))


# ----------------------------------------------------------------------------- statistics

def bootstrap(groups, statistic, resamples=1000, seed=11):
    """95% percentile interval of statistic(row indices) over resamples of the groups
    (items): every row of a drawn item is taken once per draw. NaN statistics are dropped."""
    keys = sorted(set(groups))
    if not keys:
        return [None, None]
    rows_of = {k: [r for r, g in enumerate(groups) if g == k] for k in keys}
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        drawn = rng.integers(0, len(keys), len(keys))
        rows = [r for d in drawn for r in rows_of[keys[d]]]
        v = statistic(np.array(rows, dtype=int))
        if v is not None and math.isfinite(v):
            values.append(v)
    if not values:
        return [None, None]
    return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]


def corr(kind, x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return None  # undefined: one side constant
    r = (stats.pearsonr if kind == "pearson" else stats.spearmanr)(x, y)[0]
    return float(r)


def auroc(pos, neg):
    if not pos or not neg:
        return None
    u = stats.mannwhitneyu(pos, neg, alternative="two-sided").statistic  # ties count half
    return float(u / (len(pos) * len(neg)))


def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# ----------------------------------------------------------------------------- report

def tool_scores(partdir, tool, metrics):
    """Per row id: {metric: score or None}, and per (row, metric) the reason it has none."""
    out, why = {}, {}
    if tool == "ragas":
        path = os.path.join(partdir, "ragas_scores.jsonl")
        if not os.path.exists(path):
            return None, None
        meta = sbs.load_json(os.path.join(partdir, "ragas_meta.json")) or {}
        errors = {(e["sample"], e["metric"]): f"{e['type']}: {e['message'][:100]}" for e in meta.get("job_errors", [])}
        for k, row in enumerate(sbs.read_jsonl(path)):
            out[row["id"]] = {m: row["scores"].get(m) for m in metrics}
            for m in metrics:
                if row["scores"].get(m) is None:
                    why[(row["id"], m)] = errors.get((k, m), "NaN")
        return out, why
    path = os.path.join(partdir, f"{tool}_out.jsonl")
    if not os.path.exists(path):
        return None, None
    for row in sbs.read_jsonl(path):
        out[row["id"]] = {}
        for m in metrics:
            ok = row.get("status", {}).get(m) == "ok" and finite(row.get("scores", {}).get(m))
            out[row["id"]][m] = row["scores"][m] if ok else None
            if not ok:
                why[(row["id"], m)] = f"{row.get('status', {}).get(m)}: {row.get('reasons', {}).get(m, '')[:100]}"
    return out, why


def halueval_figures(items, scores, metric):
    return pair_figures(items, scores, metric, lambda i: f"h{i}:right", lambda i: f"h{i}:hallucinated")


def long_figures(items, scores, metric):
    return pair_figures(items, scores, metric, lambda i: f"{i}:right", lambda i: f"{i}:wrong")


def pair_figures(items, scores, metric, right_key, wrong_key):
    """Pairwise accuracy (the right answer's row scored above the wrong one's, a tie half),
    AUROC and the means of both kinds of row."""
    outcomes, pos, neg, unscored = [], [], [], 0
    for index in items:
        r, w = scores.get(right_key(index), {}).get(metric), scores.get(wrong_key(index), {}).get(metric)
        if r is not None:
            pos.append(r)
        if w is not None:
            neg.append(w)
        if r is None or w is None:
            unscored += 1
            outcomes.append(None)
            continue
        outcomes.append(1.0 if r > w else 0.5 if r == w else 0.0)
    scored = [o for o in outcomes if o is not None]
    every = [0.5 if o is None else o for o in outcomes]  # an unscored pair counts as a tie
    return {
        "pairs": len(items), "scored_pairs": len(scored), "unscored_pairs": unscored,
        "wins": scored.count(1.0), "ties": scored.count(0.5), "losses": scored.count(0.0),
        "pairwise": float(np.mean(scored)) if scored else None,
        "pairwise_ci95": bootstrap(list(range(len(scored))), lambda rows: float(np.mean([scored[r] for r in rows]))) if scored else [None, None],
        "pairwise_unscored_as_tie": float(np.mean(every)) if every else None,
        "outcomes": outcomes,  # per item: 1 right above, 0.5 tie, 0 below, None unscored
        "auroc": auroc(pos, neg),
        "right_mean": float(np.mean(pos)) if pos else None,
        "hallucinated_mean": float(np.mean(neg)) if neg else None,
    }


def ragchecker_figures(items, annotations, scores, metric):
    chosen = [a for a in annotations if a["instance_id"] in set(items)]
    deltas = []
    for a in chosen:
        s1 = scores.get(f"r{a['instance_id']}:model1", {}).get(metric)
        s2 = scores.get(f"r{a['instance_id']}:model2", {}).get(metric)
        deltas.append(None if s1 is None or s2 is None else s2 - s1)
    known = [d for d in deltas if d is not None]
    fill = float(np.median(known)) if known else 0.0
    d = np.array([fill if x is None else x for x in deltas])
    groups = [a["instance_id"] for a in chosen]
    out = {"items": len(set(groups)), "annotations": len(chosen),
           "filled": len(deltas) - len(known), "zero_deltas": int(np.sum(d == 0))}
    for label in LABELS:
        y = np.array([a[label] for a in chosen], float)
        entry = {}
        for kind in ("pearson", "spearman"):
            entry[kind] = corr(kind, d, y)
            entry[f"{kind}_ci95"] = bootstrap(groups, lambda rows, kind=kind: corr(kind, d[rows], y[rows]))
        pref = [r for r in range(len(y)) if y[r] != 0]
        outcome = [1.0 if d[r] * y[r] > 0 else 0.5 if d[r] == 0 else 0.0 for r in pref]
        entry["pairwise"] = float(np.mean(outcome)) if outcome else None
        entry["pairwise_n"] = len(outcome)
        entry["pairwise_ci95"] = bootstrap([groups[r] for r in pref],
                                           lambda rows: float(np.mean([outcome[r] for r in rows]))) if outcome else [None, None]
        out[label] = entry
    return out


def paired_against_ragas(tools, metric="faithfulness"):
    """Each other tool's pairwise accuracy minus ragas's on the pairs both scored, with a
    95% bootstrap interval over those pairs resampled together: whether a tool is at least
    ragas's agreement is a question about this difference, not about two separate intervals."""
    if "ragas" not in tools:
        return {}
    theirs = tools["ragas"]["metrics"][metric]["outcomes"]
    out = {}
    for tool, t in tools.items():
        if tool == "ragas" or metric not in t["metrics"]:
            continue
        mine = t["metrics"][metric]["outcomes"]
        diffs = [m - r for m, r in zip(mine, theirs) if m is not None and r is not None]
        out[tool] = {
            "pairs": len(diffs),
            "difference": float(np.mean(diffs)) if diffs else None,
            "difference_ci95": bootstrap(list(range(len(diffs))),
                                         lambda rows: float(np.mean([diffs[r] for r in rows])))
            if diffs else [None, None],
            "better_same_worse": [sum(d > 0 for d in diffs), sum(d == 0 for d in diffs),
                                  sum(d < 0 for d in diffs)],
        }
    return out


def phase_cost(partdirs, tool):
    agg = {"parts": 0, "requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "wall_seconds": 0.0,
           "evaluate_seconds": 0.0, "server_cpu_seconds": 0.0, "non_200": 0, "exit_codes": []}
    for d in partdirs:
        p = sbs.load_json(os.path.join(d, f"phase_{tool}.json"))
        if not p:
            continue
        s = p.get("proxy") or {}
        counted = sbs.load_json(os.path.join(d, f"{tool}_tokens.json"))
        agg["parts"] += 1
        # judge requests (chat and embeddings; ragmeter's GET /props probes left out), and
        # of them the ones refused: ragmeter's first json_schema request of each process
        # (llama-cpp-python answers that format with a 500), one per part here
        paths = s.get("by_path", {})
        agg["requests"] += paths.get("/v1/chat/completions", 0) + paths.get("/v1/embeddings", 0)
        if counted:  # streamed replies: the proxy saw no usage (see count_trace_tokens)
            agg["prompt_tokens"] += counted["prompt_tokens"] + counted["embedding_tokens"]
            agg["completion_tokens"] += counted["completion_tokens"]
            agg["tokens_from_traces"] = True
        else:
            agg["prompt_tokens"] += s.get("prompt_tokens", 0)
            agg["completion_tokens"] += s.get("completion_tokens", 0)
        agg["non_200"] += sum(v for k, v in s.get("by_status", {}).items() if k not in ("200", "404"))
        agg["wall_seconds"] += p["wall_seconds"]
        meta = sbs.load_json(os.path.join(d, "ragas_meta.json")) if tool == "ragas" else None
        agg["evaluate_seconds"] += meta["evaluate_seconds"] if meta else p["wall_seconds"]
        agg["server_cpu_seconds"] += p.get("server_cpu_seconds") or 0.0
        agg["exit_codes"].append(p["exit_code"])
    return agg


def cmd_report(a):
    d = a.outdir
    parts = sorted(x for x in os.listdir(d) if os.path.isdir(os.path.join(d, x)) and "-" in x)
    annotations = ragchecker_annotations()
    report = {"settings": sbs.load_json(os.path.join(d, "settings.json")) or {}, "sets": {}}
    tools = [t for t in report["settings"].get("tools", ",".join(TOOLS)).split(",") if t]
    for set_name, spec in SETS.items():
        mine = [os.path.join(d, p) for p in parts if p.startswith(set_name)]
        # the parts every server tool finished: the tools are compared on the same rows
        done = [p for p in mine if all(os.path.exists(os.path.join(p, f"phase_{t}.json")) for t in [OFFLINE] + tools)]
        items = [i for p in done for i in sbs.load_json(os.path.join(p, "part.json"))["items"]]
        entry = {"parts_done": len(done), "parts": len(mine), "items": len(items), "tools": {}}
        for tool in [OFFLINE] + tools:
            scores, why = {}, {}
            for p in done:
                s, w = tool_scores(p, tool, spec["judged"] + (spec["baselines"] if tool == OFFLINE else []))
                scores.update(s or {})
                why.update(w or {})
            t = {"cost": phase_cost(done, tool), "metrics": {}}
            for metric in spec["judged"] + (spec["baselines"] if tool == OFFLINE else []):
                f = (halueval_figures(items, scores, metric) if set_name == "halueval"
                     else long_figures(items, scores, metric) if set_name == "long"
                     else ragchecker_figures(items, annotations, scores, metric))
                f["rows"] = len(scores)
                f["unscored_rows"] = sum(1 for (_, m) in why if m == metric)
                f["unscored_reasons"] = sorted({v for (_, m), v in why.items() if m == metric})[:5]
                f["mean"] = float(np.mean([s[metric] for s in scores.values() if s.get(metric) is not None])) \
                    if any(s.get(metric) is not None for s in scores.values()) else None
                t["metrics"][metric] = f
            t["scores"] = scores
            entry["tools"][tool] = t
        entry["item_ids"] = items
        if set_name == "halueval":
            entry["against_ragas"] = paired_against_ragas(entry["tools"])
        if set_name == "long":
            entry["against_ragas"] = {m: paired_against_ragas(entry["tools"], m) for m in LONG_PAIRED}
        report["sets"][set_name] = entry
    sbs.write_json(os.path.join(d, "report.json"), report)
    text = render(report)
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text + "\n")
    if not getattr(a, "quiet", False):
        print(text)


def fmt(x, nd=3):
    return f"{x:.{nd}f}" if finite(x) else "-"


def ci(pair):
    return f"[{fmt(pair[0], 2)}, {fmt(pair[1], 2)}]" if pair and pair[0] is not None else ""


def render(report):
    out = []
    s = report["settings"]
    out.append(f"model {s.get('model', '?')}, started {s.get('date', '?')}")
    h = report["sets"]["halueval"]
    half = s.get("split", "test")  # runs before --split existed read the test half
    out.append(f"\nHaluEval {half} half, {h['items']} items ({h['parts_done']} of {h['parts']} parts done by every tool; the items are listed below): faithfulness, right vs hallucinated")
    out.append("\n| tool | pairwise accuracy [95%] | wins / ties / losses | unscored pairs (counted as ties) | AUROC | mean right / hallucinated | unscored rows | requests | prompt tokens | wall s |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tool, t in h["tools"].items():
        for metric, f in t["metrics"].items():
            c = t["cost"]
            out.append(f"| {TOOL_NAMES[tool]}: {metric} | {fmt(f['pairwise'])} {ci(f['pairwise_ci95'])} | "
                       f"{f['wins']} / {f['ties']} / {f['losses']} | {f['unscored_pairs']} ({fmt(f['pairwise_unscored_as_tie'])}) | "
                       f"{fmt(f['auroc'])} | {fmt(f['right_mean'], 2)} / {fmt(f['hallucinated_mean'], 2)} | "
                       f"{f['unscored_rows']} | {c['requests']} ({c['non_200']}) | {c['prompt_tokens']:,} | {c['evaluate_seconds']:.0f} |")
    if h.get("against_ragas"):
        out.append("\npaired against ragas 0.4.3, on the pairs both scored: pairwise accuracy minus ragas's [95% bootstrap over pairs]; pairs where the tool did better / the same / worse")
        for tool, p in h["against_ragas"].items():
            out.append(f"- {TOOL_NAMES[tool]}: {fmt(p['difference'])} {ci(p['difference_ci95'])} over {p['pairs']} pairs; "
                       f"{' / '.join(str(x) for x in p['better_same_worse'])}")
    if h["item_ids"]:
        out += item_table(h, "per pair: faithfulness of the right / the hallucinated answer (- = no score)",
                          lambda sc, index: " / ".join(fmt(sc.get(f"h{index}:{k}", {}).get("faithfulness"), 2)
                                                       for k in ("right", "hallucinated")))
    if report["sets"].get("long", {}).get("item_ids"):
        out += render_long(report["sets"]["long"], half)
    r = report["sets"]["ragchecker"]
    out.append(f"\nRAGChecker {half} half, first {r['items']} items ({r['parts_done']} of {r['parts']} parts done by every tool): delta = score(model2) - score(model1) against the labels, one point per annotation")
    out.append("\n| tool: metric | correctness Pearson [95%] | Spearman [95%] | overall Pearson [95%] | Spearman [95%] | pairwise correctness / overall (n) | unscored rows (deltas filled) | requests | prompt tokens | wall s |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tool, t in r["tools"].items():
        for metric, f in t["metrics"].items():
            c = t["cost"]
            cc, ov = f["correctness_label"], f["overall_label"]
            out.append(f"| {TOOL_NAMES[tool]}: {metric} | {fmt(cc['pearson'])} {ci(cc['pearson_ci95'])} | "
                       f"{fmt(cc['spearman'])} {ci(cc['spearman_ci95'])} | {fmt(ov['pearson'])} {ci(ov['pearson_ci95'])} | "
                       f"{fmt(ov['spearman'])} {ci(ov['spearman_ci95'])} | {fmt(cc['pairwise'], 2)} / {fmt(ov['pairwise'], 2)} "
                       f"({cc['pairwise_n']}, {ov['pairwise_n']}) | {f['unscored_rows']} ({f['filled']}) | "
                       f"{c['requests']} ({c['non_200']}) | {c['prompt_tokens']:,} | {c['evaluate_seconds']:.0f} |")
    out.append("\nrequests: chat and embeddings requests (in brackets: of them refused, non-200); tokens and wall time are per tool over all its metrics on that set (ragmeter's compact plan "
               "shares its calls between metrics); wall s is ragas's evaluate() alone, ragmeter's whole process")
    reasons = [(f"{TOOL_NAMES[tool]} {metric} on {name}", f["unscored_reasons"])
               for name, st in report["sets"].items() for tool, t in st["tools"].items()
               for metric, f in t["metrics"].items() if f["unscored_reasons"]]
    if reasons:
        out.append("\nwhy scores are missing (first kinds):")
        out += [f"- {who}: {'; '.join(rs)}" for who, rs in reasons]
    return "\n".join(out)


def item_table(entry, heading, cell):
    """One row per item of a set, one column per tool: cell(scores of the tool, item id)."""
    tools = list(entry["tools"])
    out = [f"\n{heading}", "\n| item | " + " | ".join(TOOL_NAMES[t] for t in tools) + " |",
           "|---|" + "---:|" * len(tools)]
    for item in entry["item_ids"]:
        out.append(f"| {item} | " + " | ".join(cell(entry["tools"][t]["scores"], item) for t in tools) + " |")
    return out


def render_long(g, half):
    """The long-passage set: pairwise agreement on faithfulness and context_recall, the means
    on the right answers' rows (a response equal to a reference the gold passage states: near 1
    is right), and per item the right / wrong rows' scores."""
    out = [f"\nLong passages, {half} half, {g['items']} items ({g['parts_done']} of {g['parts']} parts done "
           "by every tool): per item the right and the wrong answer, each its own reference, "
           "three passages of 2,000 to 4,000 characters"]
    out.append("\n| tool | faithfulness pairwise [95%] | w / t / l | context_recall pairwise [95%] | w / t / l | "
               "right rows: faithfulness / context_recall / context_precision | wrong rows: faithfulness / "
               "context_recall | unscored rows | requests | prompt tokens | completion tokens | wall s |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tool, t in g["tools"].items():
        m, c = t["metrics"], t["cost"]
        cells = []
        for metric in LONG_PAIRED:
            f = m[metric]
            cells += [f"{fmt(f['pairwise'])} {ci(f['pairwise_ci95'])}", f"{f['wins']} / {f['ties']} / {f['losses']}"]
        right = " / ".join(fmt(m[x]["right_mean"], 2) for x in SETS["long"]["judged"])
        wrong = " / ".join(fmt(m[x]["hallucinated_mean"], 2) for x in LONG_PAIRED)
        unscored = sum(m[x]["unscored_rows"] for x in SETS["long"]["judged"])
        out.append(f"| {TOOL_NAMES[tool]} | " + " | ".join(cells) + f" | {right} | {wrong} | {unscored} | "
                   f"{c['requests']} ({c['non_200']}) | {c['prompt_tokens']:,} | {c['completion_tokens']:,} | "
                   f"{c['evaluate_seconds']:.0f} |")
    for metric, against in (g.get("against_ragas") or {}).items():
        for tool, p in against.items():
            out.append(f"- {metric}, {TOOL_NAMES[tool]} minus ragas 0.4.3: {fmt(p['difference'])} "
                       f"{ci(p['difference_ci95'])} over {p['pairs']} pairs; better / same / worse "
                       f"{' / '.join(str(x) for x in p['better_same_worse'])}")
    def cell(sc, item):
        right = " / ".join(fmt(sc.get(f"{item}:right", {}).get(x), 2) for x in SETS["long"]["judged"])
        wrong = " / ".join(fmt(sc.get(f"{item}:wrong", {}).get(x), 2) for x in LONG_PAIRED)
        return f"{right}; {wrong}"
    out += item_table(g, "per item: faithfulness, context_recall, context_precision of the right answer's row; "
                      "then faithfulness, context_recall of the wrong one's (- = no score)", cell)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("run")
    c.add_argument("--outdir", required=True)
    c.add_argument("--halueval", type=int, default=12, help="HaluEval items (pairs of rows)")
    c.add_argument("--ragchecker", type=int, default=12, help="RAGChecker items (pairs of rows)")
    c.add_argument("--halueval-passages", type=int, default=1,
                   help="retrieved contexts per HaluEval row: the item's passage among K-1 passages of "
                        "other items on its topic, at position item %% K (default 1: its passage alone)")
    c.add_argument("--judge-cache", help="ragmeter's judge cache file, read and written (default: none, "
                   "--cache-mode off); for tuning runs only: two builds with the same claims prompt then "
                   "pay for each claims call once, and the requests and tokens counted are the cache misses")
    c.add_argument("--split", choices=("dev", "test"), default="test",
                   help="which half of bench/offline_judge_quality.py's split: dev for tuning a judge, "
                        "test (the default) for the figures published")
    c.add_argument("--halueval-part", type=int, default=1, help="HaluEval items per part")
    c.add_argument("--halueval-skip", type=int, default=0,
                   help="skip the split's first N HaluEval items (pairs read in an earlier run)")
    c.add_argument("--ragchecker-part", type=int, default=1, help="RAGChecker items per part")
    c.add_argument("--long", type=int, default=0,
                   help="long-passage items (bench/data/long_passages.jsonl: pairs of rows, issue 39)")
    c.add_argument("--long-part", type=int, default=1, help="long-passage items per part")
    c.add_argument("--long-skip", type=int, default=0, help="skip the split's first N long-passage items")
    c.add_argument("--tools", default=",".join(TOOLS), help="server tools to run, in order")
    c.add_argument("--resume", action="store_true")
    c.add_argument("--llm-url", required=True)
    c.add_argument("--model", required=True)
    c.add_argument("--embed-model", required=True)
    c.add_argument("--ragmeter", required=True)
    c.add_argument("--ragas-python", required=True)
    c.add_argument("--server-pid-file")
    c.add_argument("--llm-python", help="python of the llm venv (llama_cpp), to count ragmeter's tokens from its traces")
    c.add_argument("--model-file", help="the GGUF file the server serves (its tokenizer and chat template)")
    c.add_argument("--workers", type=int, default=4, help="ragas max_workers = ragmeter --concurrency")
    c.add_argument("--timeout", type=int, default=7200)
    c.add_argument("--context-tokens", type=int, default=4096, help="ragmeter --judge-context-tokens (the server's window)")
    c.set_defaults(func=cmd_run)
    p = sub.add_parser("report")
    p.add_argument("--outdir", required=True)
    p.set_defaults(func=cmd_report)
    a = ap.parse_args()
    a.func(a)


if __name__ == "__main__":
    main()
