"""The floor of a judged evaluation's prompt tokens: the tokens of reading each sample once
(its question, response, reference and retrieved contexts), counted with the judge model's
own tokenizer, against the prompt tokens a run actually sent (issue 17: at most twice the
floor).

    ~/.cache/ragmeter/llm-venv/bin/python bench/prompt_token_floor.py \\
        --data examples/halueval_rag.jsonl --samples 20 \\
        --model ~/.cache/ragmeter/llm-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --trace-tokens COUNTS.json   # optional: bench/trace_tokens.py's output over the run's --traces

The tokenizer is llama.cpp's, read from the GGUF file alone (llama_cpp.Llama with
vocab_only=True: no weights, no server), the one the local judge server counts `usage`
with. Each text is tokenized on its own without BOS or special tokens, so the floor leaves
out every instruction, label and separator a prompt needs: it is what any judge must read.
The tokens sent are best taken from bench/trace_tokens.py's count of the run's `--traces`
(exact: the chat template applied, the model's tokenizer; chat prompts plus embedding
inputs); a ragmeter `--summary` JSON (`--summary`) holds the server's usage, which
llama-cpp-python leaves out of streamed replies, so there it is partly estimated
(characters / 4; the summary's judge.estimated_usage_calls says for how many calls).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def sample_texts(row):
    texts = [row.get("user_input") or "", row.get("response") or "", row.get("reference") or ""]
    texts.extend(row.get("retrieved_contexts") or [])
    return [t for t in texts if t]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="JSONL dataset (ragas field names)")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--model", required=True, help="the judge's GGUF file (its tokenizer)")
    parser.add_argument("--trace-tokens", action="append", default=[],
                        help="bench/trace_tokens.py's JSON lines over the run's traces (repeat; summed)")
    parser.add_argument("--summary", action="append", default=[],
                        help="a ragmeter --summary JSON over these samples (repeat for parts; summed)")
    args = parser.parse_args()

    from llama_cpp import Llama  # the llm-venv of scripts/setup_llm.sh

    vocab = Llama(model_path=str(pathlib.Path(args.model).expanduser()), vocab_only=True, verbose=False)

    def count(text):
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    with open(args.data, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows = rows[args.offset:args.offset + args.samples]
    per_sample = [sum(count(t) for t in sample_texts(row)) for row in rows]
    floor = sum(per_sample)
    out = {"samples": len(rows), "floor_tokens": floor,
           "floor_per_sample": floor / len(rows) if rows else 0.0,
           "floor_min": min(per_sample, default=0), "floor_max": max(per_sample, default=0)}
    print(f"{len(rows)} samples: floor {floor:,} tokens ({out['floor_per_sample']:.0f} a sample, "
          f"{out['floor_min']} to {out['floor_max']})")
    prompt, source = 0, None
    if args.trace_tokens:
        source = "traces (exact)"
        for path in args.trace_tokens:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        counts = json.loads(line)
                        prompt += counts["prompt_tokens"] + counts.get("embedding_tokens", 0)
    elif args.summary:
        source = "summary (partly estimated)"
        for path in args.summary:
            with open(path, encoding="utf-8") as f:
                prompt += json.load(f)["usage"]["prompt_tokens"]
    if source:
        out.update(prompt_tokens=prompt, prompt_source=source, prompt_per_sample=prompt / len(rows),
                   ratio_to_floor=prompt / floor if floor else None)
        print(f"sent ({source}): {prompt:,} prompt tokens ({out['prompt_per_sample']:.0f} a sample) = "
              f"{out['ratio_to_floor']:.2f} x the floor")
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
