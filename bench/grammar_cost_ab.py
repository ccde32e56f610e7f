"""What the reply grammar costs the server: replays verdict table requests of a `ragmeter eval
--traces` file to a llama.cpp server twice, once as sent (`json_object` with the JSON Schema
attached, which llama-cpp-python's server turns into a grammar) and once with `json_object`
alone (a generic JSON grammar), and prints per request the wall time, the server process's CPU
seconds (/proc), the completion tokens (the reply's usage) and whether the reply has every key
the schema requires. A measurement for docs/performance.md, not a test.

Usage: python bench/grammar_cost_ab.py SERVER_URL SERVER_PID traces.jsonl [N [ORDER]]
(N: how many verdict table requests to replay, from the first; default 3. ORDER: "schema-first"
(default) or "json-first": the second request of a pair finds its prompt in the server's
prefix cache, so run both orders and compare like with like)
"""
import json
import os
import sys
import time
import urllib.request


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def ask(url, body):
    post = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", data=json.dumps(body).encode(),
                                  headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(post, timeout=1800))


def main(url, pid, traces, n=3, order="schema-first"):
    tables = [t for t in map(json.loads, open(traces, encoding="utf-8"))
              if t.get("call") == "verdicts" and "response_format" in (t.get("request") or {})]
    print("request | grammar | wall s | server CPU s | completion tokens | CPU s per token | every key")
    for index, trace in enumerate(tables[:n]):
        request = trace["request"]
        required = request["response_format"].get("schema", {}).get("required", [])
        for grammar in ("schema", "json_object") if order == "schema-first" else ("json_object", "schema"):
            form = dict(request["response_format"])
            if grammar == "json_object":
                form.pop("schema", None)
            body = {"model": request.get("model", "judge"), "messages": request["messages"], "temperature": 0.0,
                    "max_tokens": request.get("max_tokens", 2048), "response_format": form}
            cpu, started = cpu_seconds(pid), time.time()
            reply = ask(url, body)
            wall, used = time.time() - started, cpu_seconds(pid) - cpu
            tokens = reply.get("usage", {}).get("completion_tokens", 0)
            try:
                keys = set(json.loads(reply["choices"][0]["message"]["content"]))
                complete = all(k in keys for k in required)
            except ValueError:
                complete = False
            print(f"{index} | {grammar} | {wall:.0f} | {used:.0f} | {tokens} | "
                  f"{used / tokens if tokens else float('nan'):.2f} | {'yes' if complete else 'no'}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], *map(int, sys.argv[4:5]), *sys.argv[5:6])
