#!/usr/bin/env python3
"""Sends the judge calls of one kind from a ragmeter `--traces` file to a server twice: as they
were sent, and with another system message, so that two system messages can be compared on
the same requests (docs/judges.md, "Prompts llm-v10"). Replies are requested without
streaming, so the server's `usage` counts their tokens.

    python3 system_message_ab.py --traces TRACES.jsonl --url http://127.0.0.1:PORT/v1 \\
        --call claims --system OTHER_SYSTEM.txt --out ab.json

Prints one line per request (label, cache key, usage) and writes every request's user message
and both replies to --out. A benchmark helper, not a test.
"""
import argparse
import copy
import json
import urllib.request


def send(url, body):
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=3600) as reply:
        return json.load(reply)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--traces", required=True)
    ap.add_argument("--url", required=True, help="the server's OpenAI-compatible base URL (.../v1)")
    ap.add_argument("--call", default="claims", help="the traces' call kind: claims, verdicts, questions, entities")
    ap.add_argument("--system", required=True, help="file holding the other system message")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    other = open(a.system, encoding="utf-8").read()
    results = []
    with open(a.traces, encoding="utf-8") as f:
        for line in f:
            trace = json.loads(line)
            if trace.get("kind") != "chat" or trace.get("call") != a.call:
                continue
            for label in ("as sent", "other system"):
                body = copy.deepcopy(trace["request"])
                body["stream"] = False
                body.pop("stream_options", None)
                if label == "other system":
                    body["messages"][0]["content"] = other
                reply = send(a.url.rstrip("/"), body)
                results.append({"cache_key": trace["cache_key"], "label": label,
                                "user": body["messages"][1]["content"],
                                "reply": reply["choices"][0]["message"]["content"],
                                "usage": reply.get("usage")})
                print(label, trace["cache_key"][:8], reply.get("usage"), flush=True)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
