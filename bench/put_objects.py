#!/usr/bin/env python3
"""bench/put_objects.py - many PUTs into a bucket of a loopback S3 server
(tests/tools/rgw.sh), for the benches that need a large table or lake on it
fast: 32 keep-alive connections, anonymous PUTs into a bucket created
public-read-write (the upload is never what a bench measures).

  put_objects.py PORT BUCKET/PREFIX --dir DIR   every file under DIR, keyed
                                                PREFIX/<its path under DIR>
  put_objects.py PORT BUCKET/PREFIX --empty     0-byte objects, keyed
                                                PREFIX/<each line of stdin>
Prints the number of objects put. As a module: put_all(port, bucket, items)
with items an iterable of (key, body) pairs (body: bytes, or a str naming a
file to send), consumed by the connections as they go, so a generator can
make the objects while they are being sent.
"""
import http.client
import os
import sys
import threading
import urllib.parse


def put_all(port, bucket, items, threads=32):
    items = iter(items)
    lock = threading.Lock()
    failed = []
    count = [0]

    def work():
        conn = http.client.HTTPConnection("127.0.0.1", port)
        while not failed:
            with lock:
                item = next(items, None)
            if item is None:
                return
            key, body = item
            if isinstance(body, str):
                with open(body, "rb") as f:
                    body = f.read()
            target = "/%s/%s" % (bucket, urllib.parse.quote(key, safe="/=-_.~"))
            try:
                conn.request("PUT", target, body=body, headers={"Content-Length": str(len(body))})
                resp = conn.getresponse()
                resp.read()
            except OSError as e:
                failed.append("PUT %s: %s" % (target, e))
                return
            if resp.status != 200:
                failed.append("PUT %s: HTTP %d" % (target, resp.status))
                return
            with lock:
                count[0] += 1

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if failed:
        raise SystemExit(failed[0])
    return count[0]


def dir_items(root, prefix):
    for d, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            path = os.path.join(d, name)
            yield prefix + os.path.relpath(path, root), path


def main():
    if len(sys.argv) != 4 and not (len(sys.argv) == 5 and sys.argv[3] == "--dir"):
        raise SystemExit(__doc__)
    port, target, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    bucket, _, prefix = target.partition("/")
    prefix = prefix.rstrip("/") + "/" if prefix else ""
    if mode == "--dir":
        items = dir_items(sys.argv[4], prefix)
    elif mode == "--empty":
        items = ((prefix + line.rstrip("\n"), b"") for line in sys.stdin if line.strip())
    else:
        raise SystemExit(__doc__)
    print(put_all(port, bucket, items))


if __name__ == "__main__":
    main()
