#!/usr/bin/env python3
"""Where the judge's prompt tokens go, per call kind, from a `ragmeter eval --traces` file:
the messages' tokens, the part that is the JSON Schema appended to the prompt on a server that
refused the json_schema format ("Reply with only a JSON value ... It must match this JSON
Schema: ..."; not sent since llm-v6 for the judge's prompts, docs/design.md), and the KEYS line.

    ~/.cache/ragmeter/llm-venv/bin/python bench/prompt_parts_from_traces.py --model MODEL.gguf traces.jsonl

The model is loaded vocab-only (its tokenizer; no weights read). Message contents are counted
without the chat template, so the figures are a little below bench/trace_tokens.py's.
"""
import argparse
import json

import llama_cpp

HINT = "Reply with only a JSON value"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("traces")
    a = parser.parse_args()
    model = llama_cpp.Llama(model_path=a.model, vocab_only=True, verbose=False)

    def tokens(text):
        return len(model.tokenize(text.encode(), add_bos=False, special=False))

    kinds = {}
    for line in open(a.traces, encoding="utf-8"):
        trace = json.loads(line)
        if trace.get("kind") != "chat":
            continue
        messages = trace["request"]["messages"]
        user = messages[-1]["content"]
        row = kinds.setdefault(trace.get("call", "?"), {"calls": 0, "message_tokens": 0,
                                                         "schema_hint_tokens": 0, "keys_line_tokens": 0})
        row["calls"] += 1
        row["message_tokens"] += sum(tokens(m["content"]) for m in messages)
        at = user.find(HINT)
        row["schema_hint_tokens"] += tokens(user[at:]) if at >= 0 else 0
        keys = user.find("KEYS:")
        row["keys_line_tokens"] += tokens(user[keys:user.find("\n", keys)]) if keys >= 0 else 0
    total = {k: sum(r[k] for r in kinds.values()) for k in ("calls", "message_tokens",
                                                             "schema_hint_tokens", "keys_line_tokens")}
    print(json.dumps({"by_call": kinds, "total": total}, indent=1))


if __name__ == "__main__":
    main()
