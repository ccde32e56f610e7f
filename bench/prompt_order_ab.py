"""Does the order of a judge prompt's parts change what a local server evaluates? Replays the
first N verdict-table requests of a `ragmeter eval --traces` file, each followed by one claims
request (as a run interleaves them), to a llama.cpp server, and prints per request the wall time,
the server process's CPU seconds (/proc) and the reply's token counts, then the wall time by call.

ORDER "sent" replays the requests as the traces hold them; "task-first" moves the fixed task text
(from its "Task:" line to the end) before the sample's texts, as prompts llm-v8 send it, keeping
the trailing reply hint last. Run each ORDER against a freshly started server, once with the
server's prompt cache (scripts/llm_server.sh's default) and once without
(RAGMETER_LLM_PROMPT_CACHE_MB=0): a single-slot server reuses only the prefix shared with the
request just before, a prompt cache the longest prefix shared with any earlier one. The replies
are written to OUT (JSON list) so that two runs can be compared. A measurement for
docs/performance.md, not a test.

Usage: python bench/prompt_order_ab.py SERVER_URL SERVER_PID traces.jsonl N OUT sent|task-first
"""
import json
import os
import sys
import time
import urllib.request

REPLY_HINT = "\n\n\nReply with only a JSON value, no other text."


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def task_first(request):
    request = json.loads(json.dumps(request))
    user = request["messages"][-1]["content"]
    at = user.index("\nTask: ")
    task = user[at + 1:]
    if not task.endswith(REPLY_HINT):
        raise ValueError("the request does not end with the reply hint: " + task[-80:])
    request["messages"][-1]["content"] = task[: -len(REPLY_HINT)] + "\n\n" + user[:at] + REPLY_HINT
    return request


def main(url, pid, traces, n, out, order):
    rows = [t for t in map(json.loads, open(traces, encoding="utf-8"))
            if "messages" in (t.get("request") or {})]
    tables = [t for t in rows if t["call"] == "verdicts"][:n]
    claims = [t for t in rows if t["call"] == "claims"][:n]
    sequence = [trace for pair in zip(tables, claims) for trace in pair]
    replies, wall_by_call = [], {}
    for index, trace in enumerate(sequence):
        body = dict(trace["request"] if order == "sent" else task_first(trace["request"]))
        body["stream"] = False
        cpu, started = cpu_seconds(pid), time.time()
        post = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", data=json.dumps(body).encode(),
                                      headers={"Content-Type": "application/json"})
        reply = json.load(urllib.request.urlopen(post, timeout=3600))
        wall, used = time.time() - started, cpu_seconds(pid) - cpu
        wall_by_call[trace["call"]] = wall_by_call.get(trace["call"], 0.0) + wall
        usage = reply.get("usage", {})
        replies.append(reply["choices"][0]["message"]["content"])
        print(f"{index} {trace['call']} wall {wall:.1f} cpu {used:.1f} prompt {usage.get('prompt_tokens')} "
              f"completion {usage.get('completion_tokens')}", flush=True)
    print("total wall by call", {call: round(seconds, 1) for call, seconds in wall_by_call.items()})
    json.dump(replies, open(out, "w", encoding="utf-8"))


if __name__ == "__main__":
    if len(sys.argv) != 7 or sys.argv[6] not in ("sent", "task-first"):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
