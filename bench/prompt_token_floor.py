"""Prompt tokens a judged evaluation spent per sample, against the floor of reading each
sample once: the tokens of its question, response, reference and retrieved contexts, counted
by the judge model's own tokenizer (llama-cpp-python's POST /extras/tokenize/count on the
same local server). Issue 17's goal: at most twice the floor.

    python3 bench/prompt_token_floor.py --data DATASET.jsonl --summary RAGMETER_SUMMARY.json \
        --server http://127.0.0.1:PORT

DATASET is the rows the run scored (e.g. a part's dataset.jsonl of bench/ragas_side_by_side.sh);
the summary is that run's `ragmeter eval --summary`. Prints per-sample figures and the ratio.
"""
import argparse
import json
import urllib.request

FIELDS = ("user_input", "response", "reference")


def count_tokens(server, text):
    if not text:
        return 0
    request = urllib.request.Request(server.rstrip("/") + "/extras/tokenize/count",
                                     data=json.dumps({"input": text}).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.load(reply)["count"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--server", required=True, help="the llama.cpp server's base URL, without /v1")
    a = ap.parse_args()
    rows = [json.loads(line) for line in open(a.data, encoding="utf-8") if line.strip()]
    floor = 0
    for row in rows:
        texts = [row.get(f) or "" for f in FIELDS] + list(row.get("retrieved_contexts") or [])
        floor += sum(count_tokens(a.server, t) for t in texts)
    summary = json.load(open(a.summary, encoding="utf-8"))
    usage = summary["usage"]
    by_call = usage.get("by_call", {})
    chat_prompt = sum(v.get("prompt_tokens", 0) for k, v in by_call.items() if k != "embeddings") \
        if by_call else usage["prompt_tokens"]
    n = len(rows)
    result = {
        "samples": n,
        "floor_tokens_per_sample": floor / n,
        "prompt_tokens_per_sample": usage["prompt_tokens"] / n,
        "chat_prompt_tokens_per_sample": chat_prompt / n,
        "ratio_to_floor": usage["prompt_tokens"] / floor,
        "chat_ratio_to_floor": chat_prompt / floor,
        "by_call": {k: v.get("prompt_tokens", 0) / n for k, v in by_call.items()},
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
