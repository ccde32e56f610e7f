#!/usr/bin/env python3
"""A judge cache built from a run's `--traces` file, to score that run again without a model.

`ragmeter eval --traces FILE` writes each call's cache key and the server's raw reply. This
writes those replies into a ragmeter judge cache (SQLite, the table of
src/llm/response_cache.cc, values in the form of src/llm/openai_protocol.cc's
chat_cache_value / embedding_cache_value), so that `ragmeter eval ... --cache OUT
--cache-mode replay` on the same rows sends nothing and answers every call with the reply
the model gave then. What changes is only what ragmeter does with the replies: a change
of the checks in code (src/judge/llm/verdict_checks.h) is measured on the very replies it was
made for, and on no new ones.

A call whose request differs (another prompt text) has another key and misses: in replay
mode such a call fails, and its cells say so. Token counts in the cache are the trace's
estimate-free zeros: the replayed summary's tokens are not a measurement.

Usage: python bench/cache_from_traces.py TRACES.jsonl OUT.sqlite
"""

import json
import sqlite3
import sys
import time


def stream_or_body(raw):
    """(content, finish_reason, model) of a streamed (`data:` lines) or a plain JSON chat reply."""
    if raw.lstrip().startswith("{"):
        body = json.loads(raw)
        choice = body["choices"][0]
        return choice["message"].get("content") or "", choice.get("finish_reason") or "stop", body.get("model", "")
    text, finish, model = [], "stop", ""
    for line in raw.splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        try:
            chunk = json.loads(line[6:])
        except ValueError:
            continue
        model = chunk.get("model", model)
        for choice in chunk.get("choices", []):
            text.append((choice.get("delta") or {}).get("content") or "")
            finish = choice.get("finish_reason") or finish
    return "".join(text), finish, model


def chat_value(raw, wants_json):
    content, finish, model = stream_or_body(raw)
    choice = {"content": content, "finish_reason": finish, "logprobs": []}
    if wants_json:
        choice["json"] = json.loads(content)  # a reply that is not JSON is not cached
    return {"model": model, "usage": {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0},
            "choices": [choice]}


def embedding_value(raw):
    body = json.loads(raw)
    data = sorted(body["data"], key=lambda item: item.get("index", 0))
    return {"usage": {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0},
            "vectors": [item["embedding"] for item in data]}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    traces, out = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(out)
    db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, kind TEXT NOT NULL, "
               "value TEXT NOT NULL, created_at INTEGER NOT NULL)")
    written = skipped = 0
    for line in open(traces, encoding="utf-8"):
        trace = json.loads(line)
        if trace.get("error") or not trace.get("raw_reply") or trace.get("from_cache"):
            skipped += 1
            continue
        try:
            if trace["kind"] == "chat":
                # The judge's replies asked for JSON carry it parsed (ChatChoice::json).
                wants_json = "response_format" in (trace.get("request") or {})
                value = chat_value(trace["raw_reply"], wants_json)
            else:
                value = embedding_value(trace["raw_reply"])
        except (ValueError, KeyError, IndexError, TypeError) as error:
            print(f"skipped {trace['call']} {trace['cache_key'][:12]}: {error}", file=sys.stderr)
            skipped += 1
            continue
        db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                   (trace["cache_key"], trace["kind"], json.dumps(value, ensure_ascii=False), int(time.time())))
        written += 1
    db.commit()
    print(f"{written} replies written to {out}, {skipped} traces skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
