"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for the analyzer tests, answering from a script.

Each scripted reply is one of: ("reply", text) a completion holding `text`; ("fenced", obj) the object in a ```json
fence; ("status", code, body[, headers]) an HTTP error; ("sleep", seconds, text) a completion sent late (a timeout
for a short client timeout); ("raw", bytes) a 200 response with any body. When the script runs out, `default` answers.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GOOD = {
    "episode_summary": "The agent added one until the counter showed the target.",
    "episode_skill": "Add one until the counter shows the target, then finish.",
}


def completion(text: str, model: str = "test-model") -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
    ).encode()


class ChatServer:
    def __init__(self, script=(), default=None):
        self.script, self.default = list(script), default or ("reply", json.dumps(GOOD))
        self.requests: list[dict] = []  # {"headers": {...}, "body": {...}}
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    step = server.script.pop(0) if server.script else server.default
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self.counted = True
                try:
                    self.answer(step)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass
                finally:
                    self.finish_request()

            def finish_request(self):
                # before the reply is written: once the client has it, its next request may arrive before this thread
                # runs again, and counting this one still would report one request too many in flight
                if self.counted:
                    self.counted = False
                    with server.lock:
                        server.in_flight -= 1

            def answer(self, step):
                kind = step[0]
                if kind == "sleep":
                    time.sleep(step[1])
                    self.send(200, completion(step[2]))
                elif kind == "reply":
                    self.send(200, completion(step[1]))
                elif kind == "fenced":
                    self.send(
                        200, completion("Here is the analysis:\n```json\n" + json.dumps(step[1], indent=2) + "\n```\n")
                    )
                elif kind == "status":
                    self.send(step[1], json.dumps(step[2]).encode(), step[3] if len(step) > 3 else {})
                elif kind == "raw":
                    self.send(200, step[1])
                else:
                    raise ValueError(kind)

            def send(self, code, payload, headers=None):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.finish_request()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
