#!/usr/bin/env python3
"""A loopback stand-in for the Microsoft identity platform's token
endpoint, for the OAuth2 client-credentials tests of loom's Azure backend.

    token_server.py CERT KEY CLIENT_ID CLIENT_SECRET LIFETIME_S

Serves HTTPS on 127.0.0.1 with a port the kernel picks (printed on
stdout). POST /<tenant>/oauth2/v2.0/token with grant_type=
client_credentials, the client id and secret and scope
https://storage.azure.com/.default answers {"token_type": "Bearer",
"expires_in": LIFETIME_S, "access_token": <JWT>} where the JWT (unsigned,
as Azurite's "basic" OAuth level accepts) has the claims Azurite checks:
iss https://sts.windows.net/<tenant>/, aud https://storage.azure.com,
iat/nbf now, exp now + LIFETIME_S. The client id "expired-client" gets a
token that has already expired (a negative control: Azurite must refuse
it). A wrong secret gets 401 {"error": "invalid_client", ...}, as the real
endpoint answers. GET /_stats: {"tokens": N} tokens issued.
"""
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

CERT, KEY, CLIENT_ID, CLIENT_SECRET, LIFETIME = sys.argv[1:6]
LIFETIME = int(LIFETIME)
lock = threading.Lock()
stats = {"tokens": 0}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(tenant, lifetime):
    now = int(time.time())
    header = {"alg": "none", "typ": "JWT"}
    claims = {"aud": "https://storage.azure.com", "iss": f"https://sts.windows.net/{tenant}/",
              "iat": now - 5, "nbf": now - 5, "exp": now + lifetime, "appid": CLIENT_ID,
              "tid": tenant, "oid": "00000000-0000-0000-0000-000000000001"}
    return f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}.c2lnbmF0dXJl"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, doc):
        body = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_stats":
            with lock:
                self.reply(200, dict(stats))
        else:
            self.reply(404, {"error": "not_found"})

    def do_POST(self):
        parts = self.path.strip("/").split("/")
        n = int(self.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(n).decode()).items()}
        if len(parts) != 4 or parts[1:] != ["oauth2", "v2.0", "token"]:
            return self.reply(404, {"error": "invalid_request", "error_description": "no such endpoint"})
        tenant = parts[0]
        if form.get("grant_type") != "client_credentials" or \
                form.get("scope") != "https://storage.azure.com/.default":
            return self.reply(400, {"error": "invalid_request",
                                    "error_description": "AADSTS900144: grant_type or scope wrong"})
        client = form.get("client_id")
        if client not in (CLIENT_ID, "expired-client") or form.get("client_secret") != CLIENT_SECRET:
            return self.reply(401, {"error": "invalid_client",
                                    "error_description": "AADSTS7000215: Invalid client secret provided."})
        lifetime = -60 if client == "expired-client" else LIFETIME
        with lock:
            stats["tokens"] += 1
        self.reply(200, {"token_type": "Bearer", "expires_in": LIFETIME if lifetime < 0 else lifetime,
                         "ext_expires_in": LIFETIME, "access_token": jwt(tenant, lifetime)})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
