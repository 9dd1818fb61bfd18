#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 proxy for loopback tests of object-store
clients (S3 in front of Ceph RGW, Azure Blob in front of Azurite, GCS in
front of the Storage emulator).

    fault_proxy.py --upstream 127.0.0.1:PORT [--flavor s3|azure|gcs]
                   [--error-rate R] [--slowdown-rate R] [--reset-rate R]
                   [--truncate-rate R] [--delay-rate R] [--delay-ms MS]
                   [--ambiguous-rate R] [--throttle-rate R] [--match REGEX] [--seed N]
                   [--match-header NAME=REGEX] [--skip N] [--max-faults N]
                   [--log FILE] [--trace FILE]
                   [--port-file FILE]

It listens on 127.0.0.1 (a free port unless --port is given; the port is
printed on stdout and written to --port-file) and forwards every request
byte for byte to the upstream: the request line and headers unchanged
(Host too, so signatures that cover it stay valid), the body as framed
by Content-Length or chunked encoding, and the response the same way. It
understands only the framing, nothing of S3 or Azure, except the error
bodies it makes up (--flavor).

Each request draws one fate (the rates are probabilities, tried in this
order; a request that matches none of them, or not --match, is forwarded
untouched):

  error      answered 500 without reaching the upstream (the body is read
             first, the connection stays open): S3 InternalError / Azure
             InternalError
  slowdown   answered 503 without reaching the upstream: S3 SlowDown /
             Azure ServerBusy
  reset      the request is read, never forwarded, and the connection is
             reset (RST)
  truncate   forwarded; the response's headers are relayed, then only half
             its body, then the connection is closed
  delay      forwarded; the response waits --delay-ms before it is relayed
  ambiguous  forwarded (the upstream acts on it), then the connection is
             reset instead of relaying the response: the client cannot
             know whether its request took effect
  throttle   answered 429 Too Many Requests without reaching the upstream
             (GCS rateLimitExceeded, S3 SlowDown, Azure ServerBusy)

--match REGEX limits faults to requests whose "METHOD TARGET" (the
request line's first two words) matches, and --match-header NAME=REGEX
to requests whose header NAME (any case) is there and matches (the last
chunk of a GCS resumable upload: content-range=/[0-9]+$); --skip N lets
the first N matching requests through untouched (with a rate of 1.0 and
--max-faults 1: a fault at exactly the (N+1)th matching request);
--max-faults stops injecting after N faults. Every fault is one JSON line in --log:
{"fault": "reset", "method": "PUT", "target": "/b/t/x", "n": 12}.
The same --seed gives the same sequence of fates for the same sequence of
requests (concurrent clients interleave as they will).

--trace FILE appends one JSON line per request answered, when its
response has been relayed: {"n": 12, "method": "GET", "target": "/b/t/x",
"range": "bytes=0-99", "prefix": null, "start": S, "end": E}: "prefix"
the listing's decoded prefix parameter (no other part of the query, which
may carry a signature), S and E in seconds of one monotonic clock
(start: the request's head read; end: the response sent),
so a test can see which requests were in flight at once.

SIGTERM or SIGINT stops it.
"""
import argparse
import json
import os
import random
import re
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse

MAX_HEADER = 64 * 1024


class Closed(Exception):
    """The peer closed the connection (cleanly or not)."""


class Reader:
    """Buffered reads from a socket: lines, exact counts, to EOF."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise Closed()
        self.buf += data

    def head(self):
        """Bytes up to and including the blank line ending a header block."""
        while True:
            i = self.buf.find(b"\r\n\r\n")
            if i >= 0:
                out, self.buf = self.buf[: i + 4], self.buf[i + 4:]
                return out
            if len(self.buf) > MAX_HEADER:
                raise Closed()
            self._fill()

    def line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                out, self.buf = self.buf[: i + 2], self.buf[i + 2:]
                return out
            self._fill()

    def exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        """Everything until the peer closes."""
        chunks = [self.buf]
        self.buf = b""
        while True:
            data = self.sock.recv(65536)
            if not data:
                return b"".join(chunks)
            chunks.append(data)


def parse_head(head):
    """(first line words, {lower-case name: value}) of a header block."""
    lines = head.split(b"\r\n")
    first = lines[0].decode("latin-1").split(" ", 2)
    headers = {}
    for raw in lines[1:]:
        if not raw:
            continue
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return first, headers


def read_body(reader, headers, until_close=False):
    """The body bytes as framed (chunked bodies keep their framing)."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts = []
        while True:
            size_line = reader.line()
            parts.append(size_line)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:  # trailers up to the blank line
                    t = reader.line()
                    parts.append(t)
                    if t == b"\r\n":
                        return b"".join(parts)
            parts.append(reader.exact(size + 2))
    if "content-length" in headers:
        return reader.exact(int(headers["content-length"]))
    return reader.rest() if until_close else b""


def reset(sock):
    """Close with RST instead of FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


def error_response(flavor, status):
    if flavor == "gcs":
        reason, text = {429: ("rateLimitExceeded", "The object exceeded the rate limit for object mutation "
                                                   "operations (create, update, and delete)."),
                        503: ("backendError", "Backend Error")}.get(status, ("internalError", "Internal Error"))
        body = json.dumps({"error": {"code": status, "message": text,
                                     "errors": [{"message": text, "domain": "global", "reason": reason}]}}).encode()
        phrase = {429: "Too Many Requests", 503: "Service Unavailable"}.get(status, "Internal Server Error")
        return ("HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: %d\r\n\r\n"
                % (status, phrase, len(body))).encode() + body
    if flavor == "azure":
        code = "ServerBusy" if status == 503 else "InternalError"
        text = ("The server is currently unable to receive requests. Please retry your request."
                if status == 503 else "The server encountered an internal error. Please retry the request.")
        body = ('<?xml version="1.0" encoding="utf-8"?><Error><Code>%s</Code><Message>%s</Message></Error>'
                % (code, text)).encode()
        extra = "x-ms-error-code: %s\r\n" % code
    else:
        code = "SlowDown" if status == 503 else "InternalError"
        text = ("Please reduce your request rate." if status == 503
                else "We encountered an internal error. Please try again.")
        body = ('<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message>'
                "<RequestId>fault-proxy</RequestId></Error>" % (code, text)).encode()
        extra = ""
    reason = "Slow Down" if status == 503 else "Internal Server Error"
    head = ("HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n%s\r\n"
            % (status, reason, len(body), extra))
    return head.encode() + body


class Proxy:
    # (new fates go last: the same seed keeps drawing the same fates)
    FATES = ("error", "slowdown", "reset", "truncate", "delay", "ambiguous", "throttle")

    def __init__(self, args):
        self.args = args
        host, _, port = args.upstream.rpartition(":")
        self.upstream = (host or "127.0.0.1", int(port))
        self.rng = random.Random(args.seed)
        self.match = re.compile(args.match) if args.match else None
        self.match_header = None
        if args.match_header:
            name, _, regex = args.match_header.partition("=")
            self.match_header = (name.strip().lower(), re.compile(regex))
        self.lock = threading.Lock()
        self.requests = 0
        self.matched = 0
        self.faults = 0
        self.log = open(args.log, "a", buffering=1) if args.log else None
        self.trace = open(args.trace, "a", buffering=1) if args.trace else None
        self.rates = [(f, getattr(args, f + "_rate")) for f in self.FATES]

    def matches(self, method, target, headers):
        if self.match and not self.match.search(method + " " + target):
            return False
        if self.match_header:
            name, regex = self.match_header
            return name in headers and regex.search(headers[name]) is not None
        return True

    def fate(self, method, target, headers):
        with self.lock:
            self.requests += 1
            n = self.requests
            draw = self.rng.random()
            if not self.matches(method, target, headers):
                return None, n
            self.matched += 1
            if self.matched <= self.args.skip:
                return None, n
            if self.args.max_faults is not None and self.faults >= self.args.max_faults:
                return None, n
            acc = 0.0
            for name, rate in self.rates:
                acc += rate
                if draw < acc:
                    self.faults += 1
                    if self.log:
                        self.log.write(json.dumps({"fault": name, "method": method,
                                                   "target": target.split("?")[0], "n": n}) + "\n")
                    return name, n
            return None, n

    def serve(self, client):
        reader = Reader(client)
        upstream = None
        up_reader = None
        try:
            while True:
                try:
                    head = reader.head()
                except Closed:
                    return
                started = time.monotonic()
                first, headers = parse_head(head)
                method = first[0] if first else ""
                target = first[1] if len(first) > 1 else ""
                sent_continue = False
                if headers.get("expect", "").lower() == "100-continue":
                    client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    sent_continue = True
                body = read_body(reader, headers)
                fate, n = self.fate(method, target, headers)
                if fate in ("error", "slowdown", "throttle"):
                    status = {"error": 500, "slowdown": 503, "throttle": 429}[fate]
                    client.sendall(error_response(self.args.flavor, status))
                    continue
                if fate == "reset":
                    reset(client)
                    return
                if upstream is None:
                    upstream = socket.create_connection(self.upstream, timeout=300)
                    up_reader = Reader(upstream)
                try:
                    upstream.sendall(head + body)
                    resp_head, resp_body = self.response(up_reader, method, sent_continue)
                except (Closed, OSError):
                    # the upstream dropped a kept-alive connection: tell the
                    # client the same way
                    reset(client)
                    return
                _, resp_headers = parse_head(resp_head)
                if fate == "ambiguous":
                    reset(client)
                    return
                if fate == "delay":
                    time.sleep(self.args.delay_ms / 1000.0)
                if fate == "truncate" and len(resp_body) > 1:
                    client.sendall(resp_head + resp_body[: len(resp_body) // 2])
                    client.shutdown(socket.SHUT_WR)
                    client.close()
                    return
                client.sendall(resp_head + resp_body)
                self.traced(n, method, target, headers, started)
                closing = (resp_headers.get("connection", "").lower() == "close" or
                           headers.get("connection", "").lower() == "close")
                if closing:
                    client.close()
                    return
        except (OSError, Closed, ValueError):
            try:
                client.close()
            except OSError:
                pass
        finally:
            if upstream is not None:
                upstream.close()

    def traced(self, n, method, target, headers, started):
        if not self.trace:
            return
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
        line = json.dumps({"n": n, "method": method, "target": target.split("?")[0],
                           "prefix": query.get("prefix", [None])[0],
                           "range": headers.get("range", ""), "start": started,
                           "end": time.monotonic()})
        with self.lock:
            self.trace.write(line + "\n")

    def response(self, up_reader, method, drop_interim):
        """One final response from the upstream: (head, body)."""
        while True:
            head = up_reader.head()
            first, headers = parse_head(head)
            status = int(first[1]) if len(first) > 1 and first[1].isdigit() else 0
            if 100 <= status < 200:
                if not drop_interim:
                    return head, b""
                continue
            if method == "HEAD" or status in (204, 304):
                return head, b""
            until_close = "content-length" not in headers and \
                "chunked" not in headers.get("transfer-encoding", "").lower()
            return head, read_body(up_reader, headers, until_close=until_close)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--upstream", required=True, help="HOST:PORT to forward to")
    ap.add_argument("--port", type=int, default=0, help="port to listen on (0: a free one)")
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--flavor", choices=("s3", "azure", "gcs"), default="s3")
    for fate in Proxy.FATES:
        ap.add_argument("--%s-rate" % fate, type=float, default=0.0)
    ap.add_argument("--delay-ms", type=int, default=2000)
    ap.add_argument("--match", help="inject only into requests whose 'METHOD TARGET' matches")
    ap.add_argument("--match-header", metavar="NAME=REGEX",
                    help="inject only into requests whose header NAME matches REGEX")
    ap.add_argument("--skip", type=int, default=0,
                    help="let the first N requests that match through untouched")
    ap.add_argument("--max-faults", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", help="append one JSON line per fault")
    ap.add_argument("--trace", help="append one JSON line per request answered (timings)")
    args = ap.parse_args()
    if sum(getattr(args, f + "_rate") for f in Proxy.FATES) > 1.0:
        ap.error("the fault rates add up to more than 1")

    proxy = Proxy(args)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(128)
    port = listener.getsockname()[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print(port, flush=True)

    def stop(*_):
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        client, _ = listener.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()


if __name__ == "__main__":
    main()
