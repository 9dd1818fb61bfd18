#!/usr/bin/env python3
"""A loopback stand-in for the AWS credential services a job on EC2, ECS or
EKS gets its keys from, written from AWS's documentation of each:

  - instance metadata, IMDSv2: PUT /latest/api/token (with
    X-aws-ec2-metadata-token-ttl-seconds) gives a session token; the role
    listing /latest/meta-data/iam/security-credentials/ and the role's
    credentials need it in X-aws-ec2-metadata-token (401 without: v1 refused
    unless --imds-v1);
  - the container credentials endpoint: GET /container-creds with the
    Authorization header given by --auth-token;
  - STS AssumeRoleWithWebIdentity: POST / (form body) with the --role-arn
    and the --web-token, answered in STS's XML.

Every answer hands out --access-key / --secret-key (the loopback RGW's real
keys, so the S3 requests signed with them work) with an Expiration
--lifetime seconds ahead and, with --session-token, a Token. Each request is
appended to --log as one JSON line: method, path, service, status. The port
goes to --port-file once listening.

  aws_creds_standin.py --port-file F --log L --access-key AK --secret-key SK
      [--lifetime 3600] [--role-arn ARN --web-token T] [--auth-token T]
      [--no-role] [--imds-v1] [--fail-after N]
"""
import argparse
import datetime
import json
import secrets
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROLE = "loom-test-role"


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--access-key", required=True)
    p.add_argument("--secret-key", required=True)
    p.add_argument("--session-token", default="")
    p.add_argument("--lifetime", type=int, default=3600)
    p.add_argument("--role-arn", default="arn:aws:iam::123456789012:role/loom")
    p.add_argument("--web-token", default="")
    p.add_argument("--auth-token", default="")
    p.add_argument("--no-role", action="store_true", help="IMDS: no role attached (404)")
    p.add_argument("--imds-v1", action="store_true", help="IMDS: answer without a session token")
    p.add_argument("--fail-after", type=int, default=-1,
                   help="credential answers after this many are 500s")
    return p.parse_args()


ARGS = parse_args()
LOCK = threading.Lock()
SESSIONS = set()
ISSUED = [0]


def expiration():
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=ARGS.lifetime)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def take_issue():
    """True when this credential answer may be given (see --fail-after)."""
    with LOCK:
        ISSUED[0] += 1
        return ARGS.fail_after < 0 or ISSUED[0] <= ARGS.fail_after


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self, service, status):
        with LOCK, open(ARGS.log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "service": service,
                                "status": status}) + "\n")

    def answer(self, service, status, body, ctype="application/json"):
        data = body.encode()
        self.record(service, status)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def creds_json(self):
        d = {"Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": ARGS.access_key,
             "SecretAccessKey": ARGS.secret_key, "Expiration": expiration()}
        if ARGS.session_token:
            d["Token"] = ARGS.session_token
        return json.dumps(d)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode() if n else ""

    def do_PUT(self):
        self.body()
        if self.path == "/latest/api/token" and not ARGS.imds_v1:
            if not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                return self.answer("imds", 400, "missing ttl", "text/plain")
            tok = secrets.token_hex(16)
            with LOCK:
                SESSIONS.add(tok)
            return self.answer("imds", 200, tok, "text/plain")
        return self.answer("imds", 403 if ARGS.imds_v1 else 404, "", "text/plain")

    def do_GET(self):
        if self.path.startswith("/latest/meta-data/iam/security-credentials/"):
            tok = self.headers.get("X-aws-ec2-metadata-token")
            with LOCK:
                ok = ARGS.imds_v1 or tok in SESSIONS
            if not ok:
                return self.answer("imds", 401, "", "text/plain")
            rest = self.path[len("/latest/meta-data/iam/security-credentials/"):]
            if ARGS.no_role:
                return self.answer("imds", 404, "", "text/plain")
            if rest == "":
                return self.answer("imds", 200, ROLE + "\n", "text/plain")
            if rest != ROLE:
                return self.answer("imds", 404, "", "text/plain")
            if not take_issue():
                return self.answer("imds", 500, "", "text/plain")
            return self.answer("imds", 200, self.creds_json())
        if self.path == "/container-creds":
            if ARGS.auth_token and self.headers.get("Authorization") != ARGS.auth_token:
                return self.answer("container", 403,
                                   json.dumps({"code": "AccessDenied", "message": "bad token"}))
            if not take_issue():
                return self.answer("container", 500, "{}")
            return self.answer("container", 200, self.creds_json())
        return self.answer("other", 404, "", "text/plain")

    def do_POST(self):
        form = urllib.parse.parse_qs(self.body())
        one = {k: v[0] for k, v in form.items()}
        if self.path != "/" or one.get("Action") != "AssumeRoleWithWebIdentity":
            return self.answer("sts", 400, "<ErrorResponse><Error><Code>InvalidAction</Code>"
                               "</Error></ErrorResponse>", "text/xml")
        if one.get("RoleArn") != ARGS.role_arn or one.get("WebIdentityToken") != ARGS.web_token:
            return self.answer("sts", 403, "<ErrorResponse><Error><Code>AccessDenied</Code><Message>"
                               "Not authorized to perform sts:AssumeRoleWithWebIdentity</Message>"
                               "</Error></ErrorResponse>", "text/xml")
        if not take_issue():
            return self.answer("sts", 500, "<ErrorResponse/>", "text/xml")
        token = ("<SessionToken>%s</SessionToken>" % ARGS.session_token) if ARGS.session_token else ""
        xml = ("<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
               "<AssumeRoleWithWebIdentityResult><Credentials>"
               "<AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey>%s"
               "<Expiration>%s</Expiration></Credentials>"
               "<SubjectFromWebIdentityToken>loom</SubjectFromWebIdentityToken>"
               "</AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>"
               % (ARGS.access_key, ARGS.secret_key, token, expiration()))
        return self.answer("sts", 200, xml, "text/xml")


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(ARGS.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(ARGS.port_file + ".tmp", ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
