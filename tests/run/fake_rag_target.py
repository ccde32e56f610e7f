"""A FAKE RAG system over HTTP for `ragmeter run` tests: scripted faults, not a model.

    python fake_rag_target.py --log FILE [--delay SECONDS]

Prints "fake_rag_target listening on PORT" once it accepts connections (a free port on
127.0.0.1). Every request is appended to --log as one JSON line {"question", "attempt",
"time", "method", "path", "body", "headers"} before it is answered, so tests count what ragmeter asked.

POST bodies are JSON with a "question" (GET: the question= query parameter). The reply to
a question depends on the words in it (its n-th attempt counted per question):
  "500 once"      HTTP 500 on the first attempt, then an answer
  "always 500"    HTTP 500 every time
  "429 once"      HTTP 429 with Retry-After: 1 on the first attempt, then an answer
  "slow"          sleeps 3 s before answering
  "malformed"     a reply that is not JSON
  "no answer"     JSON without an answer field
  "contexts text" JSON whose contexts are a string, not a list
  "huge"          an answer of 20 MB
A body with "messages" (a conversation's turn, TURN = its user messages) is answered
{"answer": "reply TURN to <question>", "contexts": ["passage for turn TURN"]}, with
"tool_calls" [{"name": "book_table", "args": {"people": TURN}}] when the question says
"book", an OpenAI chat completion holding only a tool call for "openai shape", and a call
whose arguments are not JSON for "bad arguments" (the faults above apply first).
otherwise: {"answer": "answer to <question>", "contexts": [{"text": ..., "id": ...}, ...],
"usage": {"prompt_tokens": 11, "completion_tokens": 7}} after --delay seconds.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ATTEMPTS: dict[str, int] = {}


def conversation_reply(question: str, messages: list) -> dict:
    """A conversation's turn (the body has "messages", the history): the reply names the
    turn (the user messages in the history), so tests see the history arrived."""
    turn = sum(1 for m in messages if m.get("role") == "user")
    if "openai shape" in question:
        return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_x", "type": "function",
                     "function": {"name": "lookup", "arguments": json.dumps({"turn": turn})}}]}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3}}
    if "bad arguments" in question:
        return {"answer": "a", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{not json"}}]}
    body = {"answer": f"reply {turn} to {question}", "contexts": [f"passage for turn {turn}"],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7}}
    if "book" in question:
        body["tool_calls"] = [{"name": "book_table", "args": {"people": turn}}]
    return body


def make_handler(log_path: str, delay: float):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def reply(self, status: int, body: bytes, headers: dict | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def handle_question(self, question: str, payload):
            with LOCK:
                ATTEMPTS[question] = ATTEMPTS.get(question, 0) + 1
                attempt = ATTEMPTS[question]
                with open(log_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"question": question, "attempt": attempt, "time": time.time(),
                                          "method": self.command, "path": self.path,
                                          "body": payload,
                                          "headers": dict(self.headers.items())}) + "\n")
            if "500 once" in question and attempt == 1 or "always 500" in question:
                return self.reply(500, b'{"error": "scripted failure"}')
            if "429 once" in question and attempt == 1:
                return self.reply(429, b'{"error": "slow down"}', {"Retry-After": "1"})
            if "slow" in question:
                time.sleep(3)
            if "malformed" in question:
                return self.reply(200, b"<html>Internal proxy page</html>")
            if "no answer" in question:
                return self.reply(200, json.dumps({"result": "nothing here"}).encode())
            if "contexts text" in question:
                return self.reply(200, json.dumps({"answer": "a", "contexts": "one context"}).encode())
            if "huge" in question:
                return self.reply(200, json.dumps({"answer": "x" * 20_000_000}).encode())
            time.sleep(delay)
            if isinstance(payload, dict) and isinstance(payload.get("messages"), list):
                return self.reply(200, json.dumps(conversation_reply(question, payload["messages"])).encode())
            body = {"answer": f"answer to {question}",
                    "contexts": [{"text": f"context one for {question}", "id": "c1"},
                                 {"text": "context two", "id": "c2"}],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 7}}
            return self.reply(200, json.dumps(body).encode())

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length) or b"{}")
            self.handle_question(str(payload.get("question", "")), payload)

        def do_GET(self):
            query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
            self.handle_question(query.get("question", [""])[0], None)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args.log, args.delay))
    server.daemon_threads = True
    print(f"fake_rag_target listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
