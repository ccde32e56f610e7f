#!/usr/bin/env python3
"""Side-by-side benchmark: ragas 0.4.3 and ragmeter's compact plan against the same local
LLM server, the same samples and the same metrics, counted by the same proxy.

Normally started by bench/ragas_side_by_side.sh (venv, build, server). Subcommands:

  compare   (any python3, stdlib only) starts bench/counting_proxy.py in front of the server,
            runs ragas (the `ragas` subcommand, in the ragas venv) and ragmeter through it,
            one after the other, then writes the report (the `report` subcommand).
  ragas     (ragas venv) runs ragas.evaluate on the dataset and writes per-sample scores.
  report    reads an output directory (its part-NN dirs) and prints the table (report.md);
            writes report.json. Totals are over the parts both tools finished.

Counted per tool, at the proxy: HTTP requests (chat and embeddings), prompt and completion
tokens from the replies' `usage`; plus wall time of the tool, CPU seconds of the server
process, and the load average during the run. Nothing here is a test: figures only.
"""

import argparse
import datetime
import json
import math
import os
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))

# ragmeter metric name -> key of the ragas metric in this benchmark (see make_ragas_metrics)
METRICS = [
    ("faithfulness", "faithfulness"),
    ("answer_relevancy", "answer_relevancy"),
    ("context_precision", "context_precision"),
    ("context_recall", "context_recall"),
    ("answer_correctness", "answer_correctness"),
    ("noise_sensitivity_relevant", "noise_sensitivity_relevant"),
    ("context_entity_recall", "context_entity_recall"),
]
SAMPLE_FIELDS = ("user_input", "response", "retrieved_contexts", "reference")


# ----------------------------------------------------------------------------- helpers

def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_json(path, obj):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def pearson(xs, ys):
    n = len(xs)
    if n < 3:
        return None
    mx, my = mean(xs), mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None  # one side constant: undefined
    return sxy / math.sqrt(sxx * syy)


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    return pearson(ranks(xs), ranks(ys)) if len(xs) >= 3 else None


def proc_cpu_seconds(pid):
    """utime + stime of a process, in seconds (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class LoadSampler:
    """Samples /proc/loadavg (1-minute) every `every` seconds while running."""

    def __init__(self, every=15.0):
        self.every, self.samples, self._stop = every, [], threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            with open("/proc/loadavg") as f:
                self.samples.append(float(f.read().split()[0]))
            if self._stop.wait(self.every):
                return

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()

    def summary(self):
        s = self.samples
        return {"mean": round(mean(s), 2), "min": min(s), "max": max(s), "samples": len(s)} if s else None


def http_json(url, method="GET"):
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


# ----------------------------------------------------------------------------- ragas side

def make_ragas_metrics():
    """The seven metrics of METRICS, as ragas 0.4.3's evaluate() takes them (the Metric
    classes), and factual_correctness (used by bench/llm_judge_agreement.py)."""
    from ragas.metrics._answer_correctness import AnswerCorrectness
    from ragas.metrics._answer_relevance import AnswerRelevancy
    from ragas.metrics._context_entities_recall import ContextEntityRecall
    from ragas.metrics._context_precision import ContextPrecision
    from ragas.metrics._context_recall import ContextRecall
    from ragas.metrics._factual_correctness import FactualCorrectness
    from ragas.metrics._faithfulness import Faithfulness
    from ragas.metrics._noise_sensitivity import NoiseSensitivity

    return {
        "faithfulness": Faithfulness(),
        "answer_relevancy": AnswerRelevancy(),  # strictness 3 (its default)
        "context_precision": ContextPrecision(),  # LLM, with reference
        "context_recall": ContextRecall(),  # LLM
        "answer_correctness": AnswerCorrectness(),  # weights 0.75 / 0.25 (its default)
        "noise_sensitivity_relevant": NoiseSensitivity(mode="relevant"),
        "context_entity_recall": ContextEntityRecall(),
        "factual_correctness": FactualCorrectness(),  # mode f1, atomicity and coverage low (its defaults)
    }


class JobErrorCounter:
    """Collects ragas's 'Exception raised in Job[i]: Type(message)' log records."""

    def __init__(self):
        import logging

        self.errors = []
        counter = self

        class H(logging.Handler):
            def emit(self, record):
                if record.msg.startswith("Exception raised in Job") and len(record.args) >= 3:
                    counter.errors.append({"job": int(record.args[0]), "type": record.args[1],
                                           "message": str(record.args[2])[:500]})

        self.handler = H(level=logging.ERROR)
        logging.getLogger("ragas").addHandler(self.handler)


def cmd_ragas(a):
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    import warnings

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    t_import = time.time()
    import ragas
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from ragas import EvaluationDataset, RunConfig, evaluate
    from ragas.cost import get_token_usage_for_openai
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper

    t_imported = time.time()
    rows = read_jsonl(a.data)
    # a field a row lacks (no retrieved_contexts in a correctness set) is left out
    dataset = EvaluationDataset.from_list([{k: r[k] for k in SAMPLE_FIELDS if k in r} for r in rows])
    metrics = make_ragas_metrics()
    keys = a.metrics.split(",") if a.metrics else [k for _, k in METRICS]

    # Generous limits so that ragas is not cut short by a slow, serial local server:
    # run_config.timeout bounds one (sample, metric) job and, through the wrapper, each
    # HTTP request (request_timeout); the OpenAI client retries connection errors, 429
    # and 5xx itself (max_retries).
    run_config = RunConfig(timeout=a.timeout, max_retries=10, max_wait=60,
                           max_workers=a.workers, seed=42)
    chat = ChatOpenAI(model=a.model, base_url=a.llm_url, api_key="sk-local-dummy",
                      timeout=a.timeout, max_retries=5)
    llm = LangchainLLMWrapper(chat, run_config=run_config)
    # check_embedding_ctx_length=False: send the texts (the default tokenizes them with
    # tiktoken and sends token ids, which only OpenAI's own models understand).
    emb = LangchainEmbeddingsWrapper(
        OpenAIEmbeddings(model=a.embed_model, base_url=a.embed_url, api_key="sk-local-dummy",
                         check_embedding_ctx_length=False, timeout=a.timeout, max_retries=5),
        run_config=run_config)

    errors = JobErrorCounter()
    t0 = time.time()
    result = evaluate(dataset, metrics=[metrics[k] for k in keys], llm=llm, embeddings=emb,
                      run_config=run_config, raise_exceptions=False,
                      token_usage_parser=get_token_usage_for_openai, show_progress=True)
    t1 = time.time()

    # evaluate() names a metric with a mode "name(mode=...)" (noise_sensitivity(mode=relevant))
    def result_key(m):
        return f"{m.name}(mode={m.mode})" if hasattr(m, "mode") else m.name

    with open(a.out, "w", encoding="utf-8") as f:
        for i, (row, scores) in enumerate(zip(rows, result.scores)):
            out = {"id": row.get("id", i), "scores": {},
                   "raw": {k: (float(v) if finite(v) else repr(v)) for k, v in scores.items()}}
            for k in keys:
                v = scores.get(result_key(metrics[k]))
                out["scores"][k] = float(v) if finite(v) else None
            f.write(json.dumps(out) + "\n")
    try:  # ragas's own record of each sample's prompts (inputs and parsed outputs)
        with open(os.path.splitext(a.meta)[0] + "_traces.json", "w", encoding="utf-8") as f:
            json.dump(result.traces, f, default=str, indent=1)
    except Exception as e:  # a cross-check only: never lose the scores over it
        print(f"ragas traces not written: {e!r}", file=sys.stderr)
    try:
        tu = result.total_tokens()
        ragas_tokens = {"input_tokens": tu.input_tokens, "output_tokens": tu.output_tokens}
    except Exception as e:  # ragas's own count is only a cross-check of the proxy's
        ragas_tokens = {"error": repr(e)}
    failed = []
    for e in errors.errors:
        failed.append(dict(e, sample=e["job"] // len(keys), metric=keys[e["job"] % len(keys)]))
    write_json(a.meta, {
        "ragas_version": ragas.__version__,
        "metrics": keys,
        "metric_names_in_ragas": {k: result_key(metrics[k]) for k in keys},
        "samples": len(rows),
        "import_seconds": round(t_imported - t_import, 2),
        "evaluate_seconds": round(t1 - t0, 2),
        "workers": a.workers,
        "timeout": a.timeout,
        "ragas_token_usage_parser": ragas_tokens,
        "job_errors": failed,
    })
    print(f"ragas: evaluate took {t1 - t0:.1f} s, {len(failed)} job errors", file=sys.stderr)


# ----------------------------------------------------------------------------- orchestration

def build_dataset(src, offset, n, dst):
    rows = read_jsonl(src)[offset:offset + n]
    with open(dst, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            out = {"id": r.get("id", f"row{i}")}
            out.update({k: r[k] for k in SAMPLE_FIELDS})
            f.write(json.dumps(out) + "\n")
    return rows


def start_proxy(upstream, outdir):
    port_file = os.path.join(outdir, "proxy.port")
    if os.path.exists(port_file):
        os.remove(port_file)
    log = open(os.path.join(outdir, "proxy.stderr"), "a")
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "counting_proxy.py"),
                          "--upstream", upstream, "--port-file", port_file,
                          "--log", os.path.join(outdir, "proxy_requests.jsonl")],
                         stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(port_file):
            return p, int(open(port_file).read())
        if p.poll() is not None:
            raise SystemExit("counting proxy exited; see proxy.stderr")
        time.sleep(0.05)
    p.kill()
    raise SystemExit("counting proxy did not start")


def run_phase(name, argv, proxy, server_pid, outdir, env=None):
    """Runs one tool through the proxy; returns and saves the phase's figures."""
    http_json(f"{proxy}/__proxy/phase?name={name}", "POST")
    cpu0 = proc_cpu_seconds(server_pid) if server_pid else None
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {' '.join(argv)}", file=sys.stderr, flush=True)
    with open(os.path.join(outdir, f"{name}.log"), "w") as log, LoadSampler() as load:
        t0 = time.time()
        rc = subprocess.call(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        t1 = time.time()
    cpu1 = proc_cpu_seconds(server_pid) if server_pid else None
    stats = http_json(f"{proxy}/__proxy/stats")["phases"].get(name)
    http_json(f"{proxy}/__proxy/phase?name=idle", "POST")
    phase = {
        "exit_code": rc,
        "wall_seconds": round(t1 - t0, 2),
        "server_cpu_seconds": round(cpu1 - cpu0, 1) if cpu0 is not None and cpu1 is not None else None,
        "load_average_1min": load.summary(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t0)),
        "proxy": stats,
    }
    write_json(os.path.join(outdir, f"phase_{name}.json"), phase)
    print(f"[{time.strftime('%H:%M:%S')}] {name}: exit {rc}, {t1 - t0:.0f} s, "
          f"{stats['requests'] if stats else 0} requests", file=sys.stderr, flush=True)
    return phase


def run_part(a, partdir, offset, n, proxy, server_pid):
    os.makedirs(partdir, exist_ok=True)
    data = os.path.join(partdir, "dataset.jsonl")
    rows = build_dataset(a.dataset, offset, n, data)
    write_json(os.path.join(partdir, "part.json"), {"offset": offset, "samples": len(rows)})
    print(f"part {partdir}: samples {offset}..{offset + len(rows) - 1}", file=sys.stderr, flush=True)
    for phase in a.phases.split(","):
        if a.resume and os.path.exists(os.path.join(partdir, f"phase_{phase}.json")):
            print(f"  {phase}: done before, kept", file=sys.stderr, flush=True)
            continue
        if phase == "ragas":
            argv = [a.ragas_python, os.path.abspath(__file__), "ragas", "--data", data,
                    "--llm-url", f"{proxy}/v1", "--model", a.model,
                    "--embed-url", f"{proxy}/v1", "--embed-model", a.embed_model,
                    "--workers", str(a.workers), "--timeout", str(a.timeout),
                    "--out", os.path.join(partdir, "ragas_scores.jsonl"),
                    "--meta", os.path.join(partdir, "ragas_meta.json")]
            if a.ragas_metrics:
                argv += ["--metrics", a.ragas_metrics]
            env = dict(os.environ, RAGAS_DO_NOT_TRACK="true", OPENAI_API_KEY="sk-local-dummy")
            run_phase("ragas", argv, proxy, server_pid, partdir, env)
        elif phase == "ragmeter":
            argv = [a.ragmeter, "eval", data,
                    "--metrics", ",".join(m for m, _ in METRICS),
                    "--judge", "openai", "--judge-url", f"{proxy}/v1", "--judge-model", a.model,
                    "--embedder", "openai", "--embedder-url", f"{proxy}/v1",
                    "--embedder-model", a.embed_model,
                    "--concurrency", str(a.workers), "--timeout", str(a.timeout),
                    "--cache-mode", "off", "--threads", "1",
                    "--out", os.path.join(partdir, "ragmeter_out.jsonl"),
                    "--summary", os.path.join(partdir, "ragmeter_summary.json"),
                    "--traces", os.path.join(partdir, "ragmeter_traces.jsonl")]
            env = dict(os.environ, OPENAI_API_KEY="sk-local-dummy")
            run_phase("ragmeter", argv, proxy, server_pid, partdir, env)
        else:
            raise SystemExit(f"unknown phase {phase}")


def cmd_compare(a):
    os.makedirs(a.outdir, exist_ok=True)
    upstream = a.llm_url.rstrip("/")
    if upstream.endswith("/v1"):
        upstream = upstream[:-3]
    proxy_proc, port = start_proxy(upstream, a.outdir)
    proxy = f"http://127.0.0.1:{port}"
    server_pid = None
    if a.server_pid_file and os.path.exists(a.server_pid_file):
        server_pid = int(open(a.server_pid_file).read().strip())
    part_size = a.part_size or a.samples
    write_json(os.path.join(a.outdir, "settings.json"), {
        "dataset": os.path.abspath(a.dataset), "offset": a.offset, "samples": a.samples,
        "part_size": part_size, "model": a.model,
        "embed_model": a.embed_model, "workers": a.workers, "timeout": a.timeout,
        "phases": a.phases, "ragmeter": os.path.abspath(a.ragmeter), "server_pid": server_pid,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "uname": " ".join(os.uname()),
        "nproc": os.cpu_count(),
    })
    try:
        for k, off in enumerate(range(a.offset, a.offset + a.samples, part_size)):
            n = min(part_size, a.offset + a.samples - off)
            run_part(a, os.path.join(a.outdir, f"part-{k + 1:02d}"), off, n, proxy, server_pid)
            cmd_report(argparse.Namespace(outdir=a.outdir, quiet=True))  # so far
    finally:
        try:
            http_json(f"{proxy}/__proxy/shutdown", "POST")
            proxy_proc.wait(timeout=10)
        except Exception:
            proxy_proc.kill()
    cmd_report(argparse.Namespace(outdir=a.outdir, quiet=False))


# ----------------------------------------------------------------------------- report

def fmt_int(x):
    return f"{x:,}" if isinstance(x, int) else "-"


def fmt(x, nd=3):
    return f"{x:.{nd}f}" if finite(x) else "-"


def load_json(path):
    return json.load(open(path)) if os.path.exists(path) else None


def part_dirs(outdir):
    parts = sorted(os.path.join(outdir, x) for x in os.listdir(outdir)
                   if x.startswith("part-") and os.path.isdir(os.path.join(outdir, x)))
    return parts or [outdir]


def aggregate_tool(parts, tool):
    """Sums one tool's phase figures over the given part dirs."""
    agg = {"requests": 0, "chat_requests": 0, "embedding_requests": 0, "non_200": {},
           "prompt_tokens": 0, "completion_tokens": 0, "wall_seconds": 0.0,
           "wall_seconds_scoring": 0.0, "server_cpu_seconds": 0.0, "exit_codes": []}
    load_sum = load_n = 0
    for d in parts:
        p = load_json(os.path.join(d, f"phase_{tool}.json"))
        s = p["proxy"] or {}
        agg["requests"] += s.get("requests", 0)
        agg["chat_requests"] += s.get("by_path", {}).get("/v1/chat/completions", 0)
        agg["embedding_requests"] += s.get("by_path", {}).get("/v1/embeddings", 0)
        for k, v in s.get("by_status", {}).items():
            if k != "200":
                agg["non_200"][k] = agg["non_200"].get(k, 0) + v
        agg["prompt_tokens"] += s.get("prompt_tokens", 0)
        agg["completion_tokens"] += s.get("completion_tokens", 0)
        agg["wall_seconds"] += p["wall_seconds"]
        meta = load_json(os.path.join(d, "ragas_meta.json")) if tool == "ragas" else None
        # ragas: its evaluate() call alone (imports excluded); ragmeter: the whole process
        agg["wall_seconds_scoring"] += meta["evaluate_seconds"] if meta else p["wall_seconds"]
        if p["server_cpu_seconds"] is not None and agg["server_cpu_seconds"] is not None:
            agg["server_cpu_seconds"] += p["server_cpu_seconds"]
        else:
            agg["server_cpu_seconds"] = None
        agg["exit_codes"].append(p["exit_code"])
        la = p.get("load_average_1min")
        if la:
            load_sum += la["mean"] * la["samples"]
            load_n += la["samples"]
        if tool == "ragmeter":
            u = (load_json(os.path.join(d, "ragmeter_summary.json")) or {}).get("usage") or {}
            own = agg.setdefault("own_usage", {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0})
            for k in own:
                own[k] += u.get(k) or 0
            # ragmeter streams its replies and llama-cpp-python sends no usage in a stream, so
            # the proxy sees only the embeddings' tokens. Exact counts: bench/trace_tokens.py
            # over the part's --traces, written beside them as ragmeter_trace_tokens.json;
            # else the summary's (streamed calls estimated).
            exact = load_json(os.path.join(d, "ragmeter_trace_tokens.json"))
            if exact:
                tokens = (exact["prompt_tokens"] + exact.get("embedding_tokens", 0),
                          exact["completion_tokens"], "traces (exact)")
            else:
                tokens = (u.get("prompt_tokens") or 0, u.get("completion_tokens") or 0,
                          "summary (streamed calls estimated)")
            agg.setdefault("token_parts", []).append(tokens)
        elif meta:
            u = meta.get("ragas_token_usage_parser") or {}
            own = agg.setdefault("own_usage", {"input_tokens": 0, "output_tokens": 0})
            for k in own:
                own[k] += u.get(k) or 0
    if agg.get("token_parts"):
        agg["proxy_prompt_tokens"] = agg["prompt_tokens"]
        agg["prompt_tokens"] = sum(t[0] for t in agg["token_parts"])
        agg["completion_tokens"] = sum(t[1] for t in agg["token_parts"])
        agg["token_source"] = sorted({t[2] for t in agg.pop("token_parts")})
    agg["load_average_1min_mean"] = round(load_sum / load_n, 2) if load_n else None
    agg["wall_seconds"] = round(agg["wall_seconds"], 1)
    agg["wall_seconds_scoring"] = round(agg["wall_seconds_scoring"], 1)
    if agg["server_cpu_seconds"] is not None:
        agg["server_cpu_seconds"] = round(agg["server_cpu_seconds"], 1)
    return agg


def cmd_recount(a):
    """Recomputes every phase's proxy counters from the proxy's request log
    (proxy_requests.jsonl), taking the requests of that phase's name made while it ran.
    Needed for runs made before the proxy reset a phase's counters when it started again:
    their later parts' counters included the earlier parts' requests."""
    sys.path.insert(0, HERE)
    from counting_proxy import new_counters
    rows = [json.loads(line) for line in open(os.path.join(a.outdir, "proxy_requests.jsonl"), encoding="utf-8")]
    for part in sorted(d for d in os.listdir(a.outdir) if d.startswith("part-")):
        for name in ("ragas", "ragmeter"):
            path = os.path.join(a.outdir, part, f"phase_{name}.json")
            if not os.path.exists(path):
                continue
            phase = json.load(open(path, encoding="utf-8"))
            start = datetime.datetime.strptime(phase["started"], "%Y-%m-%dT%H:%M:%S%z").timestamp()
            counted = phase.get("proxy") or {}
            first = counted.get("first_request_at")
            if first is not None and first >= start - 1 and "proxy_as_counted" not in phase:
                continue  # counted by a proxy that restarts a phase's counters: already right
            end = start + phase["wall_seconds"] + 1
            c = new_counters()
            for r in rows:
                if r["phase"] != name or not (start - 1 <= r["t0"] <= end):
                    continue
                c["requests"] += 1
                c["by_path"][r["path"]] = c["by_path"].get(r["path"], 0) + 1
                status = str(r["status"]) if r["status"] is not None else "no-reply"
                c["by_status"][status] = c["by_status"].get(status, 0) + 1
                c["errors"] += 1 if r["error"] is not None else 0
                usage = r["usage"] or {}
                for k in ("prompt_tokens", "completion_tokens", "total_tokens"):
                    if isinstance(usage.get(k), int):
                        c[k] += usage[k]
                if not usage and r["status"] == 200:
                    c["replies_without_usage"] += 1
                c["bytes_sent"] += r["sent"]
                c["bytes_received"] += r["received"]
                c["request_seconds"] += r["seconds"]
                if c["first_request_at"] is None or r["t0"] < c["first_request_at"]:
                    c["first_request_at"] = r["t0"]
                if c["last_reply_at"] is None or r["t0"] + r["seconds"] > c["last_reply_at"]:
                    c["last_reply_at"] = r["t0"] + r["seconds"]
            if phase.get("proxy") != c:
                phase.setdefault("proxy_as_counted", phase.get("proxy"))
                phase["proxy"] = c
                write_json(path, phase)
            print(f"{part} {name}: {c['requests']} requests, {c['prompt_tokens']} prompt tokens",
                  file=sys.stderr)


def cmd_report(a):
    d = a.outdir
    settings = load_json(os.path.join(d, "settings.json")) or {}
    parts = part_dirs(d)
    done = {t: [p for p in parts if os.path.exists(os.path.join(p, f"phase_{t}.json"))]
            for t in ("ragas", "ragmeter")}
    both = [p for p in parts if p in done["ragas"] and p in done["ragmeter"]]
    # compare over the parts both tools finished (each alone when only one ran)
    use = {t: (both if both else done[t]) for t in done}
    report = {"settings": settings, "parts": {"all": len(parts), "ragas_done": len(done["ragas"]),
                                               "ragmeter_done": len(done["ragmeter"]),
                                               "compared": [os.path.basename(p) for p in both]},
              "tools": {}, "ratios": {}, "metrics": {}}
    for t in ("ragas", "ragmeter"):
        report["tools"][t] = aggregate_tool(use[t], t) if use[t] else None

    r, m = report["tools"]["ragas"], report["tools"]["ragmeter"]
    targets = {"requests": 1 / 5, "prompt_tokens": 1 / 3, "wall_seconds": 1 / 3}
    if r and m:
        for k, target in targets.items():
            rv = r["wall_seconds_scoring"] if k == "wall_seconds" else r[k]
            mv = m["wall_seconds_scoring"] if k == "wall_seconds" else m[k]
            ratio = mv / rv if rv else None
            report["ratios"][k] = {"ragmeter": mv, "ragas": rv, "ratio": ratio, "target": target,
                                   "met": ratio is not None and ratio <= target}
        for k in ("completion_tokens", "server_cpu_seconds", "chat_requests"):
            if r[k] and m[k] is not None:
                report["ratios"][k] = {"ragmeter": m[k], "ragas": r[k], "ratio": m[k] / r[k]}

    # per-sample scores of both, over the compared parts
    rs, ms, errs, metas = [], [], [], []
    for p in (both if both else done["ragas"]):
        base = len(rs)
        meta = load_json(os.path.join(p, "ragas_meta.json"))
        if meta is None or not os.path.exists(os.path.join(p, "ragas_scores.jsonl")):
            continue
        metas.append(meta)
        rs += read_jsonl(os.path.join(p, "ragas_scores.jsonl"))
        errs += [dict(e, sample=e["sample"] + base) for e in meta.get("job_errors", [])]
    for p in (both if both else done["ragmeter"]):
        if os.path.exists(os.path.join(p, "ragmeter_out.jsonl")):
            ms += read_jsonl(os.path.join(p, "ragmeter_out.jsonl"))
    ragas_metrics = metas[0]["metrics"] if metas else []
    report["ragas_job_errors"] = errs
    report["samples_compared"] = {"ragas": len(rs), "ragmeter": len(ms)}
    for mname, rkey in METRICS:
        entry = {}
        if rs and rkey in ragas_metrics:
            rv = [row["scores"].get(rkey) for row in rs]
            entry["ragas"] = {
                "n": len(rv), "nan": sum(1 for v in rv if v is None),
                "exceptions": sum(1 for e in errs if e["metric"] == rkey),
                "exception_types": sorted({e["type"] for e in errs if e["metric"] == rkey}),
                "mean": mean([v for v in rv if v is not None]),
            }
        if ms:
            mv = [row.get("scores", {}).get(mname) for row in ms]
            st = [row.get("status", {}).get(mname) for row in ms]
            entry["ragmeter"] = {
                "n": len(mv), "ok": st.count("ok"), "skipped": st.count("skipped"),
                "failed": st.count("failed"), "mean": mean([v for v in mv if finite(v)]),
                "reasons": sorted({row.get("reasons", {}).get(mname, "")[:120] for row in ms
                                   if row.get("status", {}).get(mname) != "ok"}),
            }
        if "ragas" in entry and ms and len(rs) == len(ms):
            pairs = [(x["scores"].get(rkey), y.get("scores", {}).get(mname)) for x, y in zip(rs, ms)]
            pairs = [(x, y) for x, y in pairs if finite(x) and finite(y)]
            xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
            entry["both"] = {
                "n": len(pairs), "ragas_mean": mean(xs), "ragmeter_mean": mean(ys),
                "pearson": pearson(xs, ys), "spearman": spearman(xs, ys),
                "mean_abs_diff": mean([abs(x - y) for x, y in pairs]),
            }
        report["metrics"][mname] = entry
    write_json(os.path.join(d, "report.json"), report)
    if getattr(a, "quiet", False):
        return

    # the table
    out = []
    out.append(f"Side by side, samples compared: ragas {len(rs)}, ragmeter {len(ms)} "
               f"(parts {len(both)} of {len(parts)} done by both), model {settings.get('model', '?')} "
               f"({settings.get('date', '')})")
    out.append("")
    out.append("| | ragas 0.4.3 | ragmeter (compact) | ratio | target |")
    out.append("|---|---:|---:|---:|---:|")
    rows_ = [("HTTP requests (chat + embeddings)", "requests", fmt_int),
             ("  chat completions", "chat_requests", fmt_int),
             ("  embeddings", "embedding_requests", fmt_int),
             ("prompt tokens", "prompt_tokens", fmt_int),
             ("completion tokens", "completion_tokens", fmt_int),
             ("wall time (s)", "wall_seconds_scoring", lambda x: fmt(x, 0)),
             ("server CPU (s)", "server_cpu_seconds", lambda x: fmt(x, 0))]
    for label, k, f in rows_:
        rv = r.get(k) if r else None
        mv = m.get(k) if m else None
        ratio = mv / rv if finite(rv) and rv and finite(mv) else None
        tk = "wall_seconds" if k == "wall_seconds_scoring" else k
        target = f"<= {targets[tk]:.2f}" if tk in targets else ""
        out.append(f"| {label} | {f(rv)} | {f(mv)} | {fmt(ratio, 3)} | {target} |")
    if r or m:
        out.append(f"| non-200 replies | {(r or {}).get('non_200') or 0} | {(m or {}).get('non_200') or 0} | | |")
        out.append(f"| load average (1 min, mean) | {(r or {}).get('load_average_1min_mean', '-')} | "
                   f"{(m or {}).get('load_average_1min_mean', '-')} | | |")
        if m and m.get("token_source"):
            out.append(f"| ragmeter's tokens from | the proxy | {', '.join(m['token_source'])} | | |")
    out.append("")
    out.append("| metric | ragas mean | ragas NaN | ragas exceptions | ragmeter mean | ragmeter failed/skipped | both scored | ragas mean (both) | ragmeter mean (both) | Pearson | Spearman | mean abs diff |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for mname, _ in METRICS:
        e = report["metrics"][mname]
        ra, me, b = e.get("ragas", {}), e.get("ragmeter", {}), e.get("both", {})
        out.append(f"| {mname} | {fmt(ra.get('mean'))} | {ra.get('nan', '-')}/{ra.get('n', '-')} | "
                   f"{ra.get('exceptions', '-')} | {fmt(me.get('mean'))} | "
                   f"{me.get('failed', '-')}/{me.get('skipped', '-')} | {b.get('n', '-')} | "
                   f"{fmt(b.get('ragas_mean'))} | {fmt(b.get('ragmeter_mean'))} | {fmt(b.get('pearson'), 2)} | "
                   f"{fmt(b.get('spearman'), 2)} | {fmt(b.get('mean_abs_diff'))} |")
    text = "\n".join(out)
    print(text)
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("compare")
    c.add_argument("--dataset", default=os.path.join(HERE, "..", "examples", "halueval_rag.jsonl"))
    c.add_argument("--samples", type=int, default=20)
    c.add_argument("--offset", type=int, default=0, help="first row of the dataset to use")
    c.add_argument("--part-size", type=int, default=0,
                   help="run in parts of this many samples, each part ragas then ragmeter (0: one part)")
    c.add_argument("--resume", action="store_true", help="keep the phases an earlier run finished")
    c.add_argument("--outdir", required=True)
    c.add_argument("--llm-url", required=True, help="the server's base URL, ending in /v1")
    c.add_argument("--model", required=True)
    c.add_argument("--embed-model", required=True)
    c.add_argument("--ragmeter", required=True)
    c.add_argument("--ragas-python", required=True)
    c.add_argument("--server-pid-file")
    c.add_argument("--workers", type=int, default=4, help="ragas max_workers = ragmeter --concurrency")
    c.add_argument("--timeout", type=int, default=7200)
    c.add_argument("--phases", default="ragas,ragmeter")
    c.add_argument("--ragas-metrics", help="subset of ragas metrics (default: all seven)")
    c.set_defaults(func=cmd_compare)

    r = sub.add_parser("ragas")
    r.add_argument("--data", required=True)
    r.add_argument("--llm-url", required=True)
    r.add_argument("--model", required=True)
    r.add_argument("--embed-url", required=True)
    r.add_argument("--embed-model", required=True)
    r.add_argument("--workers", type=int, default=4)
    r.add_argument("--timeout", type=int, default=7200)
    r.add_argument("--metrics")
    r.add_argument("--out", required=True)
    r.add_argument("--meta", required=True)
    r.set_defaults(func=cmd_ragas)

    q = sub.add_parser("recount")
    q.add_argument("--outdir", required=True)
    q.set_defaults(func=cmd_recount)

    p = sub.add_parser("report")
    p.add_argument("--outdir", required=True)
    p.add_argument("--quiet", action="store_true", help="write report.json only")
    p.set_defaults(func=cmd_report)

    a = ap.parse_args()
    a.func(a)


if __name__ == "__main__":
    main()
