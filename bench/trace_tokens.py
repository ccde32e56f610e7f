#!/usr/bin/env python3
"""Counts the tokens of the judge calls in ragmeter `--traces` files with the model's own
tokenizer and chat template, for servers that stream replies without `usage`
(llama-cpp-python's server does; a counting proxy then sees no tokens, and ragmeter's summary
only estimates them at 4 characters a token).

    python trace_tokens.py --model MODEL.gguf TRACES.jsonl [...]   # prints one JSON object per file

Run with the llm venv's python (llama_cpp is needed; the model is loaded vocab-only, so no
weights are read). Per file: calls, attempts, prompt tokens (the chat template applied to the
request's messages, as the server does: checked equal to the server's `usage.prompt_tokens` on
requests with and without a system message), completion tokens (the streamed reply's content,
tokenized; without the end-of-turn token), and embeddings input tokens. A call's prompt is
counted once per attempt that got a reply.
"""
import argparse
import json
import sys

import llama_cpp
from llama_cpp.llama_chat_format import Jinja2ChatFormatter


def reply_text(raw):
    """The content of a streamed (`data:` lines) or a plain JSON chat reply."""
    text = []
    if raw.lstrip().startswith("{"):
        try:
            return json.loads(raw)["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            return ""
    for line in raw.splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        try:
            for choice in json.loads(line[6:]).get("choices", []):
                text.append((choice.get("delta") or {}).get("content") or "")
        except ValueError:
            continue
    return "".join(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="the GGUF file the server serves")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    model = llama_cpp.Llama(model_path=a.model, vocab_only=True, verbose=False)
    bos = model._model.token_get_text(model.token_bos()) if model.token_bos() >= 0 else ""
    fmt = Jinja2ChatFormatter(template=model.metadata["tokenizer.chat_template"],
                              eos_token=model._model.token_get_text(model.token_eos()), bos_token=bos,
                              add_generation_prompt=True)

    def tokens(text, special):
        return len(model.tokenize(text.encode("utf-8"), add_bos=False, special=special)) if text else 0

    for path in a.traces:
        out = {"file": path, "calls": 0, "attempts": 0, "failed_calls": 0, "prompt_tokens": 0,
               "completion_tokens": 0, "embedding_inputs": 0, "embedding_tokens": 0, "by_call": {}}
        for line in open(path, encoding="utf-8"):
            t = json.loads(line)
            if t.get("from_cache"):
                continue
            req = t.get("request") or {}
            call = t.get("call") or t.get("kind")
            c = out["by_call"].setdefault(call, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
            out["calls"] += 1
            c["calls"] += 1
            attempts = t.get("attempts") or 1
            out["attempts"] += attempts
            if t.get("error"):
                out["failed_calls"] += 1
            if "messages" in req:
                prompt = tokens(fmt(messages=req["messages"]).prompt, True)
                # the server reads the prompt of every attempt it answered; a refused format
                # (HTTP 500 before any inference) reads nothing
                answered = 1 if t.get("raw_reply") else 0
                out["prompt_tokens"] += prompt * answered
                c["prompt_tokens"] += prompt * answered
                done = tokens(reply_text(t.get("raw_reply") or ""), False)
                out["completion_tokens"] += done
                c["completion_tokens"] += done
            elif "input" in req:
                inputs = req["input"] if isinstance(req["input"], list) else [req["input"]]
                out["embedding_inputs"] += len(inputs)
                n = sum(tokens(x, False) for x in inputs)
                out["embedding_tokens"] += n
                c["prompt_tokens"] += n
        print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
