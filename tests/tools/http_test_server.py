#!/usr/bin/env python3
"""A loopback HTTP server that misbehaves on request, for the tests of
loom's HTTP layer (tests/unit/test_store_http.c). Not an object store:
the S3 and Azure backends are proven against real servers.

    http_test_server.py [--tls CERT KEY]

Binds 127.0.0.1 on a free port, prints the port on stdout, serves until
killed. Paths (ID is any token making a path unique, so each test has its
own counters; N is how many requests misbehave before it answers 200):

  /ok/ID                  200, body "ok"
  /echo/ID                200, body: the method, the body's length and the
                          request's headers, one per line
  /status/CODE/N/ID       CODE with an S3-style XML error body N times
  /reset/N/ID             reads the request, then resets the connection
  /truncate/N/ID          announces 100 bytes, sends 10, closes
  /delay/MS/N/ID          sleeps MS ms before answering
  /bytes/LEN/ID           LEN bytes (byte i is i % 251); honours Range
  /error/CODE/ID          CODE with an XML error body whose message and
                          extra elements carry the query string it got
  /json-error/CODE/ID     CODE with {"error": ..., "error_description": ...}
  /_stats                 {"connections": C, "requests": R}: connections
                          that sent any request other than /_stats, and
                          those requests
"""
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

lock = threading.Lock()
counts = {}          # path -> requests seen
stats = {"connections": 0, "requests": 0}


def seen(path):
    with lock:
        counts[path] = counts.get(path, 0) + 1
        return counts[path]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        self.counted = False

    def reply(self, code, body=b"", ctype="application/octet-stream", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def reset(self):
        # SO_LINGER with a zero timeout: close() sends RST, not FIN
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def handle_any(self):
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        body = self.read_body()
        if parts[:1] == ["_stats"]:
            with lock:
                data = json.dumps(stats).encode()
            return self.reply(200, data, "application/json")
        with lock:
            stats["requests"] += 1
            if not self.counted:
                stats["connections"] += 1
                self.counted = True
        kind = parts[0] if parts else ""
        n = seen(url.path)
        if kind == "ok":
            return self.reply(200, b"ok")
        if kind == "echo":
            lines = [self.command, str(len(body))] + [f"{k}: {v}" for k, v in self.headers.items()]
            return self.reply(200, ("\n".join(lines) + "\n").encode(), "text/plain")
        if kind == "status":
            code, times = int(parts[1]), int(parts[2])
            if n <= times:
                err = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
                       b"<Message>Please reduce your request rate.</Message></Error>")
                return self.reply(code, err, "application/xml")
            return self.reply(200, b"done")
        if kind == "reset":
            if n <= int(parts[1]):
                return self.reset()
            return self.reply(200, b"done")
        if kind == "truncate":
            if n <= int(parts[1]):
                self.send_response(200)
                self.send_header("Content-Length", "100")
                self.end_headers()
                self.wfile.write(b"0123456789")
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            return self.reply(200, b"x" * 100)
        if kind == "delay":
            if n <= int(parts[2]):
                time.sleep(int(parts[1]) / 1000.0)
            return self.reply(200, b"done")
        if kind == "bytes":
            total = int(parts[1])
            data = bytes(i % 251 for i in range(total))
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes="):
                a, b = rng[6:].split("-")
                if a == "":
                    start, end = max(0, total - int(b)), total - 1
                else:
                    start, end = int(a), min(total - 1, int(b) if b else total - 1)
                return self.reply(206, data[start:end + 1],
                                  headers=[("Content-Range", f"bytes {start}-{end}/{total}")])
            return self.reply(200, data)
        if kind == "error":
            q = escape(url.query)
            err = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
                   f"<Message>The signature does not match. Query was {q}</Message>"
                   f"<StringToSign>AWS4-HMAC-SHA256 {q}</StringToSign>"
                   "<RequestId>r-1</RequestId></Error>").encode()
            return self.reply(int(parts[1]), err, "application/xml")
        if kind == "json-error":
            err = json.dumps({"error": "invalid_client",
                              "error_description": "AADSTS7000215: Invalid client secret provided."})
            return self.reply(int(parts[1]), err.encode(), "application/json")
        return self.reply(404, b"")

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # clients that hang up (timeouts, refused certificates) are expected


def main():
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    sys.stdout.write(f"{server.server_address[1]}\n")
    sys.stdout.flush()
    # the reader may close its end once it has the port: write nothing more
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    server.serve_forever()


if __name__ == "__main__":
    main()
