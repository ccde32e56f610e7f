"""A FAKE RAG system as a command for `ragmeter run --target-cmd` tests: JSON lines on
stdin/stdout, scripted faults, not a model.

    python fake_rag_command.py STATE_DIR

Each request line is appended to STATE_DIR/requests.jsonl (with this process's pid)
before it is answered. A question containing "crash once" makes the process exit (after
printing to stderr) the first time it is asked (a marker file in STATE_DIR remembers it
across restarts); "always crash" exits every time; "hang" sleeps 120 s before answering;
"image:PATH|ANSWER" answers ANSWER with a text context and the image item
{"type": "image", "path": PATH}; otherwise the reply is
{"answer": "answer to <question>", "contexts": ["context for <question>"]}.
"""

import json
import os
import sys
import time

state = sys.argv[1]
print(f"fake_rag_command {os.getpid()} started", file=sys.stderr, flush=True)
for line in sys.stdin:
    request = json.loads(line)
    question = request["question"]
    with open(os.path.join(state, "requests.jsonl"), "a", encoding="utf-8") as log:
        log.write(json.dumps({"pid": os.getpid(), **request}) + "\n")
    marker = os.path.join(state, "crashed-" + str(request["index"]))
    if "always crash" in question or ("crash once" in question and not os.path.exists(marker)):
        open(marker, "w").close()
        print(f"fake_rag_command {os.getpid()}: crashing on purpose at {question!r}",
              file=sys.stderr, flush=True)
        sys.exit(3)
    if "hang" in question:
        time.sleep(120)
    reply = {"answer": f"answer to {question}", "contexts": [f"context for {question}"]}
    if question.startswith("image:"):  # "image:PATH|ANSWER": a text context and an image one
        path, answer = question[len("image:"):].split("|", 1)
        reply = {"answer": answer, "contexts": ["a text context", {"type": "image", "path": path}]}
    print(json.dumps(reply), flush=True)
