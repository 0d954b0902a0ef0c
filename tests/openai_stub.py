"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol, for fault tests.

``reply(body) -> str`` picks the assistant text of each call (garbage, valid JSON, ...); the
server runs in a thread (stdlib only) and counts calls. ``closed_port()`` gives a port nobody
listens on, for "server down" tests.

    with OpenAIStub(lambda body: "no JSON here") as stub:
        os.environ["OPENAI_BASE_URL"] = stub.base_url   # http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], str]


def closed_port() -> int:
    """A loopback port that was free a moment ago and has no listener (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OpenAIStub:
    """``POST /v1/chat/completions`` answered with ``reply(request body)``; anything else is a 404."""

    def __init__(self, reply: Reply, delay: float = 0.0) -> None:
        self.reply = reply
        self.delay = delay  # seconds before each answer (a slow server)
        self.calls = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                with stub._lock:
                    stub.calls += 1
                time.sleep(stub.delay)
                text = stub.reply(body)
                self._send(200, completion(body.get("model", "stub"), text))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def completion(model: str, text: str) -> dict[str, Any]:
    """A chat.completion object with one choice."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 10,
            "completion_tokens": len(text.split()),
            "total_tokens": 10 + len(text.split()),
        },
    }
