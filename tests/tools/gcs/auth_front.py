#!/usr/bin/env python3
"""Loopback stand-ins for Google's OAuth2 token endpoint and a GCE
metadata server, and an auth-checking front for the GCS server of the
tests (the emulator checks no credentials at all), for loom's GCS
credential and bad-input tests.

    auth_front.py --upstream 127.0.0.1:PORT --sa-email EMAIL --sa-pubkey PEM
                  [--client-id ID --client-secret S --refresh-token R]
                  [--lifetime S] [--server-lifetime S] [--forbid REGEX]
                  [--missing-bucket NAME] --port-file FILE

Listens on 127.0.0.1 (a free port, written to --port-file), HTTP/1.1:

  POST /token   grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer with
                an assertion: a JWT that must be RS256-signed by the key
                whose public half is --sa-pubkey (checked with the openssl
                command), iss EMAIL, aud this very URL, a devstorage scope,
                iat within 5 minutes of now and exp - iat <= 3600; else
                400 invalid_grant, as Google answers.
                grant_type=refresh_token with the authorized user's client
                id, secret and refresh token; else 400/401.
                Answers {"access_token", "expires_in": --lifetime,
                "token_type": "Bearer"}.
  GET /computeMetadata/v1/instance/service-accounts/default/token
                the metadata server: needs "Metadata-Flavor: Google" (else
                403), answers a token the same way.
  GET /_stats   {"jwt": n, "refresh": n, "metadata": n, "refused": n,
                "denied": n, "forwarded": n}
  anything else: the storage API. The request needs "Authorization:
                Bearer T" with a token issued here and still alive (it dies
                --server-lifetime seconds after issue, default --lifetime:
                shorter, it stands for a revoked or expired token) - else
                401 authError; "METHOD PATH" matching --forbid gets 403
                (no permission); a bucket named --missing-bucket gets 404
                "The specified bucket does not exist."; the rest is
                forwarded to --upstream byte for byte and its answer relayed.
"""
import argparse
import base64
import http.client
import json
import os
import re
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote

ap = argparse.ArgumentParser()
ap.add_argument("--upstream", required=True)
ap.add_argument("--sa-email", required=True)
ap.add_argument("--sa-pubkey", required=True)
ap.add_argument("--client-id", default="")
ap.add_argument("--client-secret", default="")
ap.add_argument("--refresh-token", default="")
ap.add_argument("--lifetime", type=int, default=3600)
ap.add_argument("--server-lifetime", type=float, default=None)
ap.add_argument("--forbid", default=None)
ap.add_argument("--missing-bucket", default=None)
ap.add_argument("--port-file", required=True)
args = ap.parse_args()
server_lifetime = args.server_lifetime if args.server_lifetime is not None else args.lifetime
up_host, up_port = args.upstream.rsplit(":", 1)

lock = threading.Lock()
stats = {"jwt": 0, "refresh": 0, "metadata": 0, "refused": 0, "denied": 0, "forwarded": 0}
tokens = {}   # token -> death time (monotonic)
port = [0]


def bump(k):
    with lock:
        stats[k] += 1


def issue(kind):
    with lock:
        n = sum(stats[k] for k in ("jwt", "refresh", "metadata"))
        tok = "ya29.loom-%s-%d-%s" % (kind, n, base64.b32encode(os.urandom(10)).decode())
        tokens[tok] = time.monotonic() + server_lifetime
        return tok


def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def check_jwt(assertion):
    """None when the JWT is good, else what is wrong."""
    parts = assertion.split(".")
    if len(parts) != 3:
        return "not a JWT"
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        sig = b64url_decode(parts[2])
    except Exception:
        return "undecodable JWT"
    if header.get("alg") != "RS256":
        return "alg is not RS256"
    with tempfile.NamedTemporaryFile() as sf, tempfile.NamedTemporaryFile() as df:
        sf.write(sig)
        sf.flush()
        df.write((parts[0] + "." + parts[1]).encode())
        df.flush()
        r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", args.sa_pubkey, "-signature",
                            sf.name, df.name], capture_output=True)
        if r.returncode != 0:
            return "Invalid JWT Signature."
    now = time.time()
    if claims.get("iss") != args.sa_email:
        return "iss is not the service account"
    if claims.get("aud") != "http://127.0.0.1:%d/token" % port[0]:
        return "aud is not the token URI"
    if "devstorage" not in claims.get("scope", ""):
        return "no storage scope"
    iat, exp = claims.get("iat", 0), claims.get("exp", 0)
    if abs(iat - now) > 300 or exp - iat > 3600 or exp <= now:
        return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
    return None


def gcs_error(code, message, reason):
    return json.dumps({"error": {"code": code, "message": message,
                                 "errors": [{"message": message, "domain": "global", "reason": reason}]}}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        pass

    def send(self, status, body, ctype="application/json; charset=UTF-8", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def token_answer(self, kind):
        tok = issue(kind)
        self.send(200, json.dumps({"access_token": tok, "expires_in": args.lifetime,
                                   "token_type": "Bearer"}).encode())

    def do_token(self):
        form = {k: v[0] for k, v in parse_qs(self.body().decode()).items()}
        grant = form.get("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            why = check_jwt(form.get("assertion", ""))
            if why:
                bump("refused")
                return self.send(400, json.dumps({"error": "invalid_grant", "error_description": why}).encode())
            bump("jwt")
            return self.token_answer("sa")
        if grant == "refresh_token":
            if form.get("client_id") != args.client_id or form.get("client_secret") != args.client_secret:
                bump("refused")
                return self.send(401, json.dumps({"error": "invalid_client",
                                                  "error_description": "The OAuth client was not found."}).encode())
            if form.get("refresh_token") != args.refresh_token:
                bump("refused")
                return self.send(400, json.dumps({"error": "invalid_grant",
                                                  "error_description": "Bad Request"}).encode())
            bump("refresh")
            return self.token_answer("user")
        bump("refused")
        self.send(400, json.dumps({"error": "unsupported_grant_type"}).encode())

    def route(self):
        path = self.path.split("?", 1)[0]
        if self.command == "POST" and path == "/token":
            return self.do_token()
        if self.command == "GET" and path == "/_stats":
            with lock:
                return self.send(200, json.dumps(stats).encode())
        if path == "/computeMetadata/v1/instance/service-accounts/default/token":
            if self.headers.get("Metadata-Flavor") != "Google":
                return self.send(403, b"Missing Metadata-Flavor:Google header.", "text/html")
            bump("metadata")
            return self.token_answer("md")
        body = self.body()
        auth = self.headers.get("Authorization", "")
        tok = auth[7:] if auth.startswith("Bearer ") else None
        with lock:
            death = tokens.get(tok) if tok else None
        if death is None or time.monotonic() > death:
            bump("denied")
            return self.send(401, gcs_error(401, "Invalid Credentials", "authError"),
                             extra=[("WWW-Authenticate", 'Bearer realm="https://accounts.google.com/"')])
        if args.forbid and re.search(args.forbid, "%s %s" % (self.command, path)):
            bump("denied")
            return self.send(403, gcs_error(403, "loom-test@example.iam.gserviceaccount.com does not have "
                                            "storage.objects.create access to the Google Cloud Storage "
                                            "object. Permission 'storage.objects.create' denied on "
                                            "resource (or it may not exist).", "forbidden"))
        m = re.match(r"^/(?:upload/|batch/)?storage/v1/b/([^/]+)", path)
        if args.missing_bucket and m and unquote(m.group(1)) == args.missing_bucket:
            return self.send(404, gcs_error(404, "The specified bucket does not exist.", "notFound"))
        bump("forwarded")
        conn = http.client.HTTPConnection(up_host, int(up_port), timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "connection")}
        conn.request(self.command, self.path, body=body if body or self.command in ("POST", "PUT") else None,
                     headers=headers)
        r = conn.getresponse()
        data = r.read()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        conn.close()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = route


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
port[0] = srv.server_address[1]
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(port[0]))
os.rename(args.port_file + ".tmp", args.port_file)
srv.serve_forever()
