#!/usr/bin/env python3
"""A counting HTTP proxy for benchmarking LLM judges (stdlib only).

Forwards every request to an upstream OpenAI-compatible server and counts, per phase:
HTTP requests by path and status, the `usage` of JSON replies (prompt, completion and
total tokens), bytes sent and received, and the time requests spent in the proxy. Both
tools of a side-by-side benchmark go through the same proxy, so they are counted alike.

    python3 bench/counting_proxy.py --upstream http://127.0.0.1:PORT [--port 0]
        [--port-file FILE] [--log requests.jsonl]

Control endpoints (answered by the proxy, never forwarded):
    POST /__proxy/phase?name=NAME   start counting into phase NAME (created empty if new)
    GET  /__proxy/stats             JSON: {"phase": current, "phases": {NAME: counters}}
    POST /__proxy/shutdown          stop the proxy

Plain replies are read whole before they are returned. Event streams
(text/event-stream) are passed through as they arrive, so the client sees the server's
progress; when the client goes away mid-stream the proxy closes the upstream connection
too (which stops a llama.cpp server's generation), as a direct connection would.
Usage is read from the JSON reply or the stream's `data:` lines. A request whose client
had gone when its reply (or a piece of its stream) was written counts as "abandoned".
"""

import argparse
import http.client
import http.server
import json
import os
import select
import socket
import sys
import threading
import time
import urllib.parse

HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
    "trailers", "transfer-encoding", "upgrade", "host", "content-length",
}


def new_counters():
    return {
        "requests": 0,
        "by_path": {},
        "by_status": {},
        "errors": 0,  # no reply from upstream (connection refused, timeout, ...)
        "abandoned": 0,  # the client had gone when its reply was written
        "abandoned_seconds": 0.0,  # upstream time of the abandoned requests
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "replies_without_usage": 0,
        "bytes_sent": 0,
        "bytes_received": 0,
        "request_seconds": 0.0,  # sum over requests (queueing at the server included)
        "first_request_at": None,
        "last_reply_at": None,
    }


class State:
    def __init__(self, log_path):
        self.lock = threading.Lock()
        self.phase = "default"
        self.phases = {"default": new_counters()}
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None

    def set_phase(self, name):
        """Starts phase `name` with its counters at zero (a phase name used again, as each
        part of a benchmark does, counts that run alone)."""
        with self.lock:
            self.phase = name
            self.phases[name] = new_counters()

    def record(self, path, status, usage, sent, received, t0, t1, error=None, abandoned=False):
        with self.lock:
            c = self.phases[self.phase]
            c["requests"] += 1
            if abandoned:
                c["abandoned"] += 1
                c["abandoned_seconds"] += t1 - t0
            key = path.split("?", 1)[0]
            c["by_path"][key] = c["by_path"].get(key, 0) + 1
            skey = str(status) if status is not None else "no-reply"
            c["by_status"][skey] = c["by_status"].get(skey, 0) + 1
            if error is not None:
                c["errors"] += 1
            if usage:
                for k in ("prompt_tokens", "completion_tokens", "total_tokens"):
                    v = usage.get(k)
                    if isinstance(v, int):
                        c[k] += v
            elif status == 200:
                c["replies_without_usage"] += 1
            c["bytes_sent"] += sent
            c["bytes_received"] += received
            c["request_seconds"] += t1 - t0
            if c["first_request_at"] is None or t0 < c["first_request_at"]:
                c["first_request_at"] = t0
            if c["last_reply_at"] is None or t1 > c["last_reply_at"]:
                c["last_reply_at"] = t1
            if self.log:
                self.log.write(json.dumps({
                    "phase": self.phase, "path": key, "status": status, "t0": round(t0, 3),
                    "seconds": round(t1 - t0, 3), "usage": usage or None, "sent": sent,
                    "received": received, "error": error, "abandoned": abandoned,
                }) + "\n")
                self.log.flush()

    def snapshot(self):
        with self.lock:
            return json.loads(json.dumps({"phase": self.phase, "phases": self.phases}))


def usage_of(body, content_type):
    """The `usage` object of a JSON reply, or the last one in an SSE stream; else None."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "text/event-stream" in (content_type or ""):
        usage = None
        for line in text.splitlines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data and data != "[DONE]":
                    try:
                        u = json.loads(data).get("usage")
                    except (ValueError, AttributeError):
                        continue
                    if isinstance(u, dict):
                        usage = u
        return usage
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    u = doc.get("usage") if isinstance(doc, dict) else None
    return u if isinstance(u, dict) else None


def make_handler(state, upstream, timeout, server_ref):
    up = urllib.parse.urlsplit(upstream)
    up_host, up_port = up.hostname, up.port or (443 if up.scheme == "https" else 80)
    up_prefix = up.path.rstrip("/")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet
            pass

        def _reply(self, status, body, content_type="application/json", headers=()):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _client_gone(self):
            """True when the client has closed its end (EOF readable on its socket)."""
            try:
                readable, _, _ = select.select([self.connection], [], [], 0)
                return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

        def _control(self):
            parts = urllib.parse.urlsplit(self.path)
            q = urllib.parse.parse_qs(parts.query)
            if parts.path == "/__proxy/phase":
                state.set_phase(q.get("name", ["default"])[0])
                self._reply(200, json.dumps({"phase": state.phase}).encode())
            elif parts.path == "/__proxy/stats":
                self._reply(200, json.dumps(state.snapshot(), indent=1).encode())
            elif parts.path == "/__proxy/shutdown":
                self._reply(200, b"{}")
                threading.Thread(target=server_ref[0].shutdown, daemon=True).start()
            else:
                self._reply(404, b'{"error": "unknown control endpoint"}')

        def _forward(self):
            if self.path.startswith("/__proxy/"):
                return self._control()
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            headers["Content-Length"] = str(len(body))
            headers["Connection"] = "close"
            t0 = time.time()
            try:
                cls = http.client.HTTPSConnection if up.scheme == "https" else http.client.HTTPConnection
                conn = cls(up_host, up_port, timeout=timeout)
                conn.request(self.command, up_prefix + self.path, body=body, headers=headers)
                resp = conn.getresponse()
                status = resp.status
                rheaders = [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP_BY_HOP]
                ctype = resp.getheader("Content-Type", "")
                if "text/event-stream" in ctype:
                    return self._relay_stream(conn, resp, status, rheaders, ctype, body, t0)
                data = resp.read()
                conn.close()
            except Exception as e:  # upstream unreachable or timed out: a 502 to the client
                t1 = time.time()
                state.record(self.path, None, None, len(body), 0, t0, t1, error=repr(e))
                self._reply(502, json.dumps({"error": {"message": "proxy: " + repr(e)}}).encode())
                return
            t1 = time.time()
            abandoned = self._client_gone()
            try:
                if abandoned:
                    raise BrokenPipeError
                self.send_response(status)
                for k, v in rheaders:
                    if k.lower() != "content-type":
                        self.send_header(k, v)
                self.send_header("Content-Type", ctype or "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                abandoned = True
                self.close_connection = True
            state.record(self.path, status, usage_of(data, ctype), len(body), len(data), t0, t1,
                         abandoned=abandoned)

        def _relay_stream(self, conn, resp, status, rheaders, ctype, body, t0):
            """Passes an event stream through piece by piece (chunked); stops and closes
            upstream when the client has gone."""
            data, abandoned = b"", False
            try:
                self.send_response(status)
                for k, v in rheaders:
                    if k.lower() != "content-type":
                        self.send_header(k, v)
                self.send_header("Content-Type", ctype)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.flush()
                while True:
                    piece = resp.read1(65536)
                    if not piece:
                        break
                    data += piece
                    if self._client_gone():
                        raise BrokenPipeError
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                abandoned = True
                self.close_connection = True
            finally:
                conn.close()
            state.record(self.path, status, usage_of(data, ctype), len(body), len(data), t0,
                         time.time(), abandoned=abandoned)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="upstream base, e.g. http://127.0.0.1:8080")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--port-file", help="write the chosen port here once listening")
    ap.add_argument("--log", help="append one JSON line per forwarded request")
    ap.add_argument("--timeout", type=float, default=7200.0, help="upstream timeout (s)")
    args = ap.parse_args()

    state = State(args.log)
    server_ref = [None]
    httpd = http.server.ThreadingHTTPServer(
        (args.host, args.port), make_handler(state, args.upstream, args.timeout, server_ref))
    httpd.daemon_threads = True
    server_ref[0] = httpd
    port = httpd.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"counting_proxy: http://{args.host}:{port} -> {args.upstream}", file=sys.stderr, flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
