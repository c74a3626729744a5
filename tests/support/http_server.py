#!/usr/bin/env python3
"""A loopback HTTP server for clefrun's remote tests (stdlib only).

  http_server.py --root DIR --log FILE

Binds 127.0.0.1 on an ephemeral port, prints "PORT <n>" on stdout, serves
until killed. Every request is appended to FILE as one JSON line
{"method", "path", "host", "range", "auth", "inm", "status", "bytes"} so a
test can count requests and body bytes.

Files carry an ETag ("SIZE-MTIME" in hex, like nginx) and answer 304 to a
matching If-None-Match; the tree listing carries one too. Requests in
absolute form ("GET http://host/path", what a client sends to a proxy) are
served as their path, with the host logged: the server is its own proxy.

Paths (NAME is a file under --root):
  /files/NAME              Range-aware (206 + Content-Range, 416 past the end)
  /noetag/NAME             /files/NAME without an ETag
  /changing/NAME           /files/NAME with a new ETag at every request ("v1", "v2", ...)
  /norange/NAME            ignores Range: 200 with the whole body
  /badrange/NAME           206 with a Content-Range 7 bytes off
  /truncated/NAME          206 that closes after half the promised body
  /slow/NAME               sends one byte every 0.5 s
  /drip/RATE/NAME          /files/NAME at RATE bytes/s (a tenth every 0.1 s): at
                           1100, the rate that held a user for 539 s, above the
                           low-speed floor: only a time limit stops it
  /badtotal/NAME           206 whose Content-Range names a total of 100 bytes
  /retry/N                 429 with "Retry-After: N"
  /raw/WHAT                not HTTP: "http09" answers a body without a status
                           line, "garbage" a status line of nonsense,
                           "bigheader" a header line of 1 MiB
  /status/CODE             answers CODE (401, 403, 404, 416, 500, ...)
  /redirect/N/NAME         N redirects, then /files/NAME
  /loop                    redirects to itself
  /tofile                  redirects to file:///etc/passwd
  /auth/NAME               /files/NAME behind "Authorization: Bearer secret-token"
  /api/models/O/R/tree/REV[?recursive=true]
                           a Hugging Face tree listing of the .gguf files in
                           --root (repo "gated/R": token required)
  /O/R/resolve/REV/PATH    302 to http://localhost:PORT/cdn/PATH, like the
                           Hugging Face CDN, with the file's ETag as
                           X-Linked-Etag (repo "gated/R": token required)
  /cdn/NAME                /files/NAME on the "other host"
  /v2/NS/MODEL/manifests/TAG
                           an Ollama registry: the manifest --root/ollama/manifests/
                           registry.ollama.ai/NS/MODEL/TAG (tests/support/stores.py
                           writes that store), only to a request whose Accept
                           names the docker manifest v2 type (else 406), as
                           application/vnd.docker.distribution.manifest.v2+json
  /v2/NS/MODEL/blobs/sha256:HEX
                           307 to /cdn/ollama/blobs/sha256-HEX, like the
                           registry's redirect to its CDN
"""
import argparse
import json
import os
import re
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "secret-token"
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "clefrun-test"

    def log_message(self, fmt, *args):  # quiet
        pass

    def record(self, status, nbytes):
        entry = {"method": self.command, "path": self.path,
                 "host": self.headers.get("Host", ""),
                 "range": self.headers.get("Range"),
                 "auth": self.headers.get("Authorization") is not None,
                 "inm": self.headers.get("If-None-Match"),
                 "status": status, "bytes": nbytes}
        with LOCK, open(self.server.log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send_plain(self, status, body=b"", headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        # Logged before the headers go out (end_headers sends them), so the
        # line is there when the client has its last byte, even without a
        # body (a 304).
        self.record(status, len(body))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def redirect(self, location, status=302):
        self.send_plain(status, b"redirect\n", {"Location": location})

    def authorized(self):
        return self.headers.get("Authorization") == "Bearer " + TOKEN

    def file_path(self, name):
        name = name.split("?", 1)[0]
        p = os.path.realpath(os.path.join(self.server.root, name))
        if not p.startswith(os.path.realpath(self.server.root) + os.sep) or not os.path.isfile(p):
            return None
        return p

    def parse_range(self, size):
        r = self.headers.get("Range")
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", r or "")
        if not m:
            return None
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) else size - 1
        return start, min(end, size - 1)

    @staticmethod
    def etag_of(p):
        return '"%x-%x"' % (int(os.path.getmtime(p)), os.path.getsize(p))

    def not_modified(self, etag):
        inm = self.headers.get("If-None-Match")
        if inm and etag in [t.strip() for t in inm.split(",")]:
            self.send_plain(304, b"", {"ETag": etag})
            return True
        return False

    def serve_file(self, name, mode="normal", rate=1100):
        p = self.file_path(name)
        if not p:
            return self.send_plain(404, b"not found\n")
        size = os.path.getsize(p)
        if mode == "normal" and self.not_modified(self.etag_of(p)):
            return None
        rng = None if mode == "norange" else self.parse_range(size)
        if self.headers.get("Range") and rng is None and mode != "norange":
            return self.send_plain(400, b"bad range\n")
        if rng and rng[0] >= size:
            return self.send_plain(416, b"", {"Content-Range": "bytes */%d" % size})
        if mode == "norange":
            return self.stream_whole(p, size)
        with open(p, "rb") as f:
            if rng:
                start, end = rng
                f.seek(start)
                body = f.read(end - start + 1)
                status = 206
                shown = start + 7 if mode == "badrange" else start
                total = 100 if mode == "badtotal" else size
                headers = {"Content-Range": "bytes %d-%d/%d" % (shown, shown + len(body) - 1, total)}
            else:
                body = f.read()
                status, headers = 200, {}
        if mode == "truncated":
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            half = body[:len(body) // 2]
            self.wfile.write(half)
            self.wfile.flush()
            self.record(status, len(half))
            self.close_connection = True
            return
        if mode == "drip":
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.record(status, len(body))
            step = max(1, rate // 10)
            try:
                for i in range(0, len(body), step):
                    self.wfile.write(body[i:i + step])
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            self.close_connection = True
            return
        if mode == "slow":
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            sent = 0
            try:
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    sent += 1
                    time.sleep(0.5)
            except OSError:
                pass
            self.record(status, sent)
            self.close_connection = True
            return
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        if mode == "changing":
            with LOCK:
                self.server.changes = getattr(self.server, "changes", 0) + 1
                self.send_header("ETag", '"v%d"' % self.server.changes)
        elif mode != "noetag":
            self.send_header("ETag", self.etag_of(p))
        self.end_headers()
        self.record(status, len(body))
        self.wfile.write(body)

    def stream_whole(self, p, size):
        """200 with the whole file, whatever the Range said, in pieces, so
        that a client that stops reading stops the count."""
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        sent = 0
        try:
            with open(p, "rb") as f:
                while True:
                    piece = f.read(65536)
                    if not piece:
                        break
                    self.wfile.write(piece)
                    sent += len(piece)
        except OSError:
            self.close_connection = True
        self.record(200, sent)

    def tree(self, owner, repo):
        if owner == "gated" and not self.authorized():
            return self.send_plain(401, b'{"error":"gated"}')
        if repo == "missing":
            return self.send_plain(404, b'{"error":"Repository not found"}')
        out = []
        for root, _, files in os.walk(self.server.root):
            for fn in sorted(files):
                full = os.path.join(root, fn)
                rel = os.path.relpath(full, self.server.root)
                size = os.path.getsize(full)
                out.append({"type": "file", "oid": "0" * 40, "size": size, "path": rel,
                            "lfs": {"oid": "1" * 64, "size": size, "pointerSize": 134}})
        out.append({"type": "directory", "oid": "2" * 40, "size": 0, "path": "sub"})
        # File names are sent as they are on disk, bytes that are not UTF-8
        # included (a hostile listing): surrogateescape gives them back.
        body = json.dumps(out, ensure_ascii=False).encode("utf-8", "surrogateescape")
        etag = 'W/"%x"' % (zlib.crc32(body))
        if self.not_modified(etag):
            return None
        self.send_plain(200, body, {"Content-Type": "application/json", "ETag": etag})

    def do_GET(self):
        path = self.path
        port = self.server.server_address[1]
        m = re.fullmatch(r"https?://[^/]+(/.*)", path)
        if m:  # a proxy request
            path = m.group(1)
        m = re.fullmatch(r"/(files|noetag|changing|norange|badrange|badtotal|truncated|slow)/(.+)", path)
        if m:
            mode = {"files": "normal"}.get(m.group(1), m.group(1))
            return self.serve_file(m.group(2), mode)
        m = re.fullmatch(r"/drip/(\d+)/(.+)", path)
        if m:
            return self.serve_file(m.group(2), "drip", int(m.group(1)))
        m = re.fullmatch(r"/retry/(\d+)", path)
        if m:
            return self.send_plain(429, b"slow down\n", {"Retry-After": m.group(1)})
        m = re.fullmatch(r"/raw/(http09|garbage|bigheader)", path)
        if m:
            raw = {"http09": b"GGUF and no status line\r\n",
                   "garbage": b"HTTP/1.1 abc nonsense\r\n\r\n",
                   "bigheader": b"HTTP/1.1 200 OK\r\nX-Big: " + b"x" * (1 << 20) + b"\r\n\r\n"}[m.group(1)]
            self.close_connection = True
            try:
                self.wfile.write(raw)
            except OSError:
                pass
            return self.record(0, len(raw))
        m = re.fullmatch(r"/status/(\d+)", path)
        if m:
            return self.send_plain(int(m.group(1)), b"status\n")
        m = re.fullmatch(r"/redirect/(\d+)/(.+)", path)
        if m:
            n = int(m.group(1))
            if n <= 0:
                return self.redirect("/files/" + m.group(2))
            return self.redirect("/redirect/%d/%s" % (n - 1, m.group(2)))
        if path == "/loop":
            return self.redirect("/loop")
        if path == "/tofile":
            return self.redirect("file:///etc/passwd")
        m = re.fullmatch(r"/auth/(.+)", path)
        if m:
            if not self.authorized():
                return self.send_plain(401, b"unauthorized\n")
            return self.serve_file(m.group(1))
        m = re.fullmatch(r"/api/models/([^/]+)/([^/]+)/tree/([^/?]+)(\?.*)?", path)
        if m:
            return self.tree(m.group(1), m.group(2))
        m = re.fullmatch(r"/([^/]+)/([^/]+)/resolve/([^/]+)/(.+)", path)
        if m:
            if m.group(1) == "gated" and not self.authorized():
                return self.send_plain(401, b"gated\n")
            p = self.file_path(m.group(4))
            if not p:
                return self.send_plain(404, b"Entry not found\n")
            headers = {"Location": "http://localhost:%d/cdn/%s" % (port, m.group(4)),
                       "X-Linked-Etag": self.etag_of(p), "X-Linked-Size": str(os.path.getsize(p))}
            return self.send_plain(302, b"redirect\n", headers)
        m = re.fullmatch(r"/v2/([^/]+)/([^/]+)/manifests/([^/]+)", path)
        if m:
            if "application/vnd.docker.distribution.manifest.v2+json" not in (self.headers.get("Accept") or ""):
                return self.send_plain(406, b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}')
            p = self.file_path(os.path.join("ollama", "manifests", "registry.ollama.ai", *m.groups()))
            if not p:
                return self.send_plain(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}')
            with open(p, "rb") as f:
                body = f.read()
            return self.send_plain(200, body, {"Content-Type": "application/vnd.docker.distribution.manifest.v2+json",
                                               "ETag": self.etag_of(p)})
        m = re.fullmatch(r"/v2/([^/]+)/([^/]+)/blobs/sha256:([0-9a-f]{64})", path)
        if m:
            name = "ollama/blobs/sha256-" + m.group(3)
            if not self.file_path(name):
                return self.send_plain(404, b'{"errors":[{"code":"BLOB_UNKNOWN"}]}')
            return self.redirect("/cdn/" + name, 307)
        m = re.fullmatch(r"/cdn/(.+)", path)
        if m:
            return self.serve_file(m.group(1))
        return self.send_plain(404, b"no route\n")

    do_HEAD = do_GET


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # Clients that hang up mid-body are part of the tests.
        if not isinstance(sys.exc_info()[1], (ConnectionError, BrokenPipeError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.root = args.root
    srv.log = args.log
    open(args.log, "w").close()
    print("PORT %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
