"""How much of each tool's prompts llama-cpp-python's server evaluated, and how much it reused
from its prefix cache, from the server's log and the counting proxy's request log of a
bench/llm_judge_agreement.py run (one server, the tools one after the other).

The server prints, per completion with a prefix-cache hit, "Llama.generate: N prefix-match
hit, remaining M prompt tokens to eval", and uvicorn prints an access line per request: for a
plain reply (ragas) when it ends, so right after that request's generate line (the server
generates one reply at a time); for a streamed reply (ragmeter) when the stream starts, so
several may come before their generate lines. The proxy's log (proxy_requests.jsonl) has the
same requests in the same order with the tool that sent them. A generate line followed by the
access line of a plain reply is that request's; any other belongs to the streaming tool whose
requests came last. A completion without a generate line had no prefix hit (its whole prompt
was evaluated; the log does not say how long it was) and is counted apart.

Usage: python bench/prefix_reuse_from_server_log.py SERVER_LOG PROXY_REQUESTS_JSONL
"""
import json
import re
import sys

ACCESS = re.compile(r'"POST (/v1/\S+) HTTP/1\.1" (\d+)')
GENERATE = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")


def events(log_path):
    out = []
    for line in open(log_path, encoding="utf-8", errors="replace"):
        if (m := ACCESS.search(line)):
            out.append(("access", m.group(1), int(m.group(2))))
        elif (m := GENERATE.search(line)):
            out.append(("generate", int(m.group(1)), int(m.group(2))))
    return out


def main(log_path, proxy_path):
    log = events(log_path)
    requests = [r for r in map(json.loads, open(proxy_path, encoding="utf-8"))
                if r["path"].startswith("/v1/") and r["path"] != "/v1/models"]
    totals, next_request, streaming_phase = {}, 0, None

    def phase_totals(phase):
        return totals.setdefault(phase, {"requests": 0, "completions": 0, "generates": 0,
                                         "reused": 0, "evaluated": 0})

    for k, event in enumerate(log):
        if event[0] == "access":
            if next_request >= len(requests) or requests[next_request]["path"] != event[1]:
                sys.exit(f"server log and proxy log out of step at server log event {k}: {event}")
            request = requests[next_request]
            next_request += 1
            t = phase_totals(request["phase"])
            t["requests"] += 1
            if request["status"] == 200 and request["path"] == "/v1/chat/completions":
                t["completions"] += 1
            if request["phase"] != "ragas":
                streaming_phase = request["phase"]
            continue
        following = log[k + 1] if k + 1 < len(log) else None
        plain = (following is not None and following[0] == "access" and next_request < len(requests)
                 and requests[next_request]["phase"] == "ragas")
        phase = "ragas" if plain else streaming_phase
        if phase is None:
            continue  # before any request of the proxy's log
        t = phase_totals(phase)
        t["generates"] += 1
        t["reused"] += event[1]
        t["evaluated"] += event[2]
    print("tool | requests | chat completions | prompt tokens reused (prefix cache) | evaluated | "
          "completions without a prefix hit (whole prompt evaluated, length not logged)")
    for phase, t in totals.items():
        print(f"{phase} | {t['requests']} | {t['completions']} | {t['reused']} | {t['evaluated']} | "
              f"{t['completions'] - t['generates']}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
