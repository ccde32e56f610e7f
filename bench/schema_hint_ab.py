"""A/B of the JSON Schema pasted into a verdict table's prompt (what llm-v5 and earlier sent to a
server that refuses json_schema; llm-v6 does not, docs/design.md): replays verdict table requests
of a `ragmeter eval --traces` file to an OpenAI-compatible server without and with the pasted
schema, and prints each reply's verdicts.

Usage: python bench/schema_hint_ab.py SERVER_URL traces.jsonl [FIRST LAST]
(FIRST, LAST: the range of verdict table requests to replay, 0-based, end excluded; default 4 7)
"""
import json
import sys
import time
import urllib.request


def main(url, traces, first=4, last=7):
    tables = [t for t in map(json.loads, open(traces, encoding="utf-8")) if t.get("call") == "verdicts"]
    for trace in tables[first:last]:
        request = trace["request"]
        for pasted in (False, True):
            messages = json.loads(json.dumps(request["messages"]))
            if pasted:
                messages[-1]["content"] += " It must match this JSON Schema: " + json.dumps(
                    request["response_format"]["schema"], separators=(",", ":"), sort_keys=True)
            body = {"model": request.get("model", "judge"), "messages": messages, "temperature": 0.0,
                    "max_tokens": 2048, "response_format": request["response_format"]}
            started = time.time()
            post = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", data=json.dumps(body).encode(),
                                          headers={"Content-Type": "application/json"})
            reply = json.load(urllib.request.urlopen(post, timeout=600))
            content = json.loads(reply["choices"][0]["message"]["content"])
            verdicts = {k: v for k, v in content.items() if k.startswith("P")}
            print("pasted schema" if pasted else "no schema", f"{time.time() - started:.0f} s", verdicts, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *map(int, sys.argv[3:5]))
