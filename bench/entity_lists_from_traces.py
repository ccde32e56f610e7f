"""How much the model's list of the contexts' entities added to context_entity_recall, read
from a `ragmeter eval --traces` file of prompts llm-v5 or earlier (one entities call listed the
reference's and the contexts' entities; llm-v6 asks the reference's only, docs/design.md).

For each reference entity (case-folded, spaces normalised): found as whole words in the
contexts' text, found in the model's context list, and found in the list only.

Usage: ~/.cache/ragmeter/llm-venv/bin/python bench/entity_lists_from_traces.py traces.jsonl
(the llm venv: bench/trace_tokens.py, whose reply reader it uses, imports llama_cpp)
"""
import json
import re
import sys

from trace_tokens import reply_text  # bench/: the reply of a streamed or plain trace


def norm(text):
    return re.sub(r"\s+", " ", text.casefold()).strip()


def main(path):
    total = by_words = by_list = list_only = 0
    for line in open(path, encoding="utf-8"):
        trace = json.loads(line)
        if trace.get("call") != "entities" or trace.get("error"):
            continue
        user = trace["request"]["messages"][-1]["content"]
        if "CONTEXTS:" not in user:
            continue  # an llm-v6 call: the reference only
        contexts = " " + norm(user[user.index("CONTEXTS:"):user.index("Task:")]) + " "
        reply = json.loads(reply_text(trace["raw_reply"]))
        listed = {norm(e) for e in reply.get("context_entities", [])}
        for entity in {norm(e) for e in reply.get("reference_entities", []) if re.search(r"\w", e)}:
            total += 1
            words = re.search(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", contexts) is not None
            by_words += words
            by_list += entity in listed
            if entity in listed and not words:
                list_only += 1
                print(f"in the list only: {entity}")
    print(f"reference entities {total}; found as whole words in the contexts {by_words}; "
          f"in the model's context list {by_list}; in the list only {list_only}")


if __name__ == "__main__":
    main(sys.argv[1])
