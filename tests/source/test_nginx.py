#!/usr/bin/env python3
"""Remote reading against a real nginx (Debian's nginx-light), started here.

  test_nginx.py CLEFRUN NGINX GGUF_WRITE

nginx runs unprivileged on 127.0.0.1 at a free port, with a configuration
written to a temporary directory (pid file, logs and temp paths in it,
`daemon off`), serving GGUF files made by scripts/gguf-write and a Hugging
Face-shaped tree:

  /api/models/OWNER/REPO/tree/main     the file list (a static JSON file)
  /OWNER/REPO/resolve/main/FILE        302 to http://localhost:PORT/cdn/OWNER/REPO/FILE
  /cdn/OWNER/REPO/FILE, /files/...     the files, with nginx's own Range and ETag support

Requests and bytes are counted from nginx's access log (log_format with
$status $body_bytes_sent $http_range $request_uri), not from clefrun's own
figures. Without nginx the test FAILS (scripts/setup --with-tests installs
it): it never skips.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

KiB = 1024
check = T.check


def find_nginx(given=None):
    """nginx's path, or None (bench/remote-inspect falls back to Python)."""
    for cand in (given, "/usr/sbin/nginx", shutil.which("nginx")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONF = """\
daemon off;
master_process on;
worker_processes 1;
{user}
pid {tmp}/run/nginx.pid;
error_log {tmp}/logs/error.log warn;
events {{ worker_connections 64; }}
http {{
    log_format counted '$status $body_bytes_sent "$http_range" $request_method $request_uri';
    access_log {tmp}/logs/access.log counted;
    client_body_temp_path {tmp}/run/body;
    proxy_temp_path {tmp}/run/proxy;
    fastcgi_temp_path {tmp}/run/fastcgi;
    uwsgi_temp_path {tmp}/run/uwsgi;
    scgi_temp_path {tmp}/run/scgi;
    default_type application/octet-stream;
    sendfile on;
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
        root {tmp}/www;
        location /api/models/ {{ default_type application/json; }}
        # Hugging Face answers resolve URLs with a redirect to its CDN.
        location ~ ^/([^/]+)/([^/]+)/resolve/[^/]+/(.+)$ {{
            return 302 http://localhost:{port}/cdn/$1/$2/$3;
        }}
        location /cdn/ {{ alias {tmp}/www/files/; }}
        location /files/ {{ }}
    }}
}}
"""


class Nginx:
    """nginx on 127.0.0.1 serving TMP/www (also used by bench/remote-inspect)."""

    def __init__(self, binary, tmp):
        self.binary, self.tmp, self.proc = binary, tmp, None
        for d in ("logs", "run", "conf"):
            os.makedirs(os.path.join(tmp, d), exist_ok=True)
        self.log = os.path.join(tmp, "logs", "access.log")

    def start(self):
        # The port is free when asked for and may be taken before nginx binds
        # it: a few tries.
        for _ in range(5):
            self.port = free_port()
            conf = os.path.join(self.tmp, "conf", "nginx.conf")
            # As root, nginx would run its workers as nobody, who cannot read
            # the private temporary directory.
            user = "user root root;" if os.geteuid() == 0 else ""
            with open(conf, "w") as f:
                f.write(CONF.format(tmp=self.tmp, port=self.port, user=user))
            self.proc = subprocess.Popen(
                [self.binary, "-p", self.tmp + "/", "-c", conf, "-e", self.tmp + "/logs/error.log"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 10
            while time.time() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                        return
                except OSError:
                    time.sleep(0.05)
            self.stop()
        err = open(os.path.join(self.tmp, "logs", "error.log")).read() if os.path.exists(
            os.path.join(self.tmp, "logs", "error.log")) else ""
        raise RuntimeError("nginx did not start:\n" + err)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def reset(self):
        open(self.log, "w").close()

    def lines(self):
        """The access log once nginx has finished writing it (it logs a
        request when it is done, which may be just after the client)."""
        last, stable = None, 0
        deadline = time.time() + 3
        while time.time() < deadline:
            with open(self.log) as f:
                text = f.read()
            if text == last and text.endswith(("\n", "")):
                stable += 1
                if stable >= 3:
                    break
            else:
                stable = 0
            last = text
            time.sleep(0.05)
        out = []
        for line in (last or "").splitlines():
            status, nbytes, rng, method, uri = line.split(" ", 4)
            out.append({"status": int(status), "bytes": int(nbytes), "range": rng.strip('"'),
                        "method": method, "uri": uri})
        return out


def tree(files_dir):
    out = []
    for root, _, files in os.walk(files_dir):
        for fn in sorted(files):
            full = os.path.join(root, fn)
            rel = os.path.relpath(full, files_dir)
            size = os.path.getsize(full)
            out.append({"type": "file", "oid": "0" * 40, "size": size, "path": rel,
                        "lfs": {"oid": "1" * 64, "size": size, "pointerSize": 134}})
    out.append({"type": "file", "oid": "3" * 40, "size": 1234, "path": "README.md"})
    return json.dumps(out)


def main():
    global CLEFRUN
    CLEFRUN, nginx_arg, writer = sys.argv[1:4]
    binary = find_nginx(nginx_arg)
    if not binary:
        print("FAIL nginx not found (given %r): install Debian's nginx-light "
              "(scripts/setup --with-tests, or apt-get install nginx-light)" % nginx_arg)
        return 1
    tmp = tempfile.mkdtemp(prefix="clefrun-nginx-")
    cache_home = os.path.join(tmp, "cache")
    www = os.path.join(tmp, "www")
    try:
        # ---- the files: a repository of quants of one model (one split) and
        # one with a header larger than the first 256 KiB range
        llama = os.path.join(www, "files", "test", "llama")
        big = os.path.join(www, "files", "test", "big")
        os.makedirs(llama)
        os.makedirs(big)
        for quant, typ in (("Q4_K_M", "Q4_K"), ("Q8_0", "Q8_0")):
            T.gguf_write(os.path.join(llama, f"Llama-3.1-8B-{quant}.gguf"), "--preset", "llama-3.1-8b",
                         "--type", typ, "--sparse", writer=writer)
        T.gguf_write(os.path.join(llama, "Llama-3.1-8B-F16.gguf"), "--preset", "llama-3.1-8b", "--type", "F16",
                     "--sparse", "--split", "2", writer=writer)
        T.gguf_write(os.path.join(big, "Deci-Q8_0.gguf"), "--preset", "deci-kvarr", "--vocab", "24000",
                     "--vocab-tokens", "--sparse", writer=writer)
        for repo, d in (("test/llama", llama), ("test/big", big)):
            t = os.path.join(www, "api", "models", repo, "tree")
            os.makedirs(t)
            with open(os.path.join(t, "main"), "w") as f:
                f.write(tree(d))

        ng = Nginx(binary, tmp)
        try:
            ng.start()
        except RuntimeError as e:
            print(f"FAIL {e}")
            return 1
        base = f"http://127.0.0.1:{ng.port}"
        env = dict(os.environ)
        for k in ("HF_TOKEN", "HF_HOME", "HF_TOKEN_PATH", "http_proxy", "https_proxy", "HTTPS_PROXY",
                  "ALL_PROXY", "all_proxy", "no_proxy", "NO_PROXY"):
            env.pop(k, None)
        env.update(HF_ENDPOINT=base, XDG_CACHE_HOME=cache_home, HOME=tmp)

        def run(*args, command="inspect"):
            p = subprocess.run([CLEFRUN, command, *args], capture_output=True, text=True, env=env, timeout=60)
            return p.returncode, p.stdout, p.stderr

        def fresh():
            shutil.rmtree(cache_home, ignore_errors=True)
            ng.reset()

        try:
            # nginx itself: Range and ETag as the test assumes.
            ng.reset()
            small = f"{base}/files/test/llama/Llama-3.1-8B-Q4_K_M.gguf"

            # ---- a small header: 1 request, at most header + 256 KiB
            fresh()
            rc, out, err = run(small, "--format", "json")
            j = json.loads(out) if rc == 0 else {}
            log = ng.lines()
            hdr = j.get("gguf", {}).get("header_bytes", 0)
            check("small header: exit", rc == 0, err)
            check("small header: 1 request", len(log) == 1 and log[0]["status"] == 206
                  and log[0]["range"] == "bytes=0-262143", log)
            check("small header: bytes <= header + 256 KiB",
                  sum(x["bytes"] for x in log) <= hdr + 256 * KiB and hdr > 0, (hdr, log))
            check("small header: clefrun counts what nginx sent",
                  j.get("remote", {}).get("bytes") == sum(x["bytes"] for x in log), (j.get("remote"), log))
            check("small header: the model", j.get("model", {}).get("arch") == "llama"
                  and j.get("model", {}).get("params") == 8030261248, j.get("model", {}).get("params"))

            # ---- a header larger than the first range: 2 requests
            fresh()
            rc, out, err = run(f"{base}/files/test/big/Deci-Q8_0.gguf", "--format", "json")
            j = json.loads(out) if rc == 0 else {}
            log = ng.lines()
            hdr = j.get("gguf", {}).get("header_bytes", 0)
            check("large header: exit", rc == 0, err)
            check("large header: > 256 KiB, < 1 MiB", 256 * KiB < hdr < 1024 * KiB, hdr)
            check("large header: 2 requests", len(log) == 2 and all(x["status"] == 206 for x in log), log)
            check("large header: bytes <= header + 256 KiB", sum(x["bytes"] for x in log) <= hdr + 256 * KiB,
                  (hdr, log))
            check("large header: the second asks for new bytes only",
                  len(log) == 2 and log[1]["range"].startswith("bytes=262144-"), log)

            # ---- hf:OWNER/REPO: the list, one request
            fresh()
            rc, out, err = run("hf:test/llama", "--format", "json")
            j = json.loads(out) if rc == 0 else {}
            log = ng.lines()
            files = {f["path"]: f for f in j.get("files", [])}
            check("hf list: exit", rc == 0, err)
            check("hf list: one request", [x["uri"] for x in log] ==
                  ["/api/models/test/llama/tree/main?recursive=true"], log)
            check("hf list: the GGUF files, split grouped",
                  sorted(files) == ["Llama-3.1-8B-F16-00001-of-00002.gguf", "Llama-3.1-8B-Q4_K_M.gguf",
                                    "Llama-3.1-8B-Q8_0.gguf"]
                  and files["Llama-3.1-8B-F16-00001-of-00002.gguf"]["parts"] == 2
                  and files["Llama-3.1-8B-Q8_0.gguf"]["quant"] == "Q8_0", files)

            # ---- hf:OWNER/REPO:QUANT: list, resolve (302), CDN range
            fresh()
            rc, out, err = run("hf:test/llama:Q4_K_M", "--format", "json")
            j = json.loads(out) if rc == 0 else {}
            log = ng.lines()
            check("hf quant: exit", rc == 0, err)
            check("hf quant: list, redirect, one range",
                  [(x["status"], x["uri"]) for x in log] ==
                  [(200, "/api/models/test/llama/tree/main?recursive=true"),
                   (302, "/test/llama/resolve/main/Llama-3.1-8B-Q4_K_M.gguf"),
                   (206, "/cdn/test/llama/Llama-3.1-8B-Q4_K_M.gguf")], log)
            check("hf quant: the file", j.get("model", {}).get("file_type") == "Q4_K_M"
                  and j.get("remote", {}).get("requests") == 3, (j.get("model", {}).get("file_type"), j.get("remote")))

            # a split quant: both parts, each through the redirect
            fresh()
            rc, out, err = run("hf:test/llama:F16", "--format", "json")
            j = json.loads(out) if rc == 0 else {}
            log = ng.lines()
            check("hf split quant", rc == 0 and j["gguf"]["parts"] == 2 and len(log) == 5
                  and [x["status"] for x in log].count(206) == 2, (err, log))

            # ---- check --model hf:OWNER/REPO: one row per file
            fresh()
            rc, out, err = run("--model", "hf:test/llama", "--rig", "rtx4090", "--format", "json", command="check")
            j = json.loads(out) if rc in (0, 3) else {}
            rows = j.get("results", [])
            check("check repo: exit", rc == 0, err)
            check("check repo: one row per file", sorted(r["quant"] for r in rows) == ["F16", "Q4_K_M", "Q8_0"],
                  [r.get("quant") for r in rows])
            check("check repo: real weights differ per file",
                  len({r["memory"]["weights_bytes"] for r in rows}) == 3, rows and [r["memory"] for r in rows])

            # ---- the cache: the second time, no request at all
            ng.reset()
            rc, out, err = run("--model", "hf:test/llama", "--rig", "rtx4090", "--format", "json", command="check")
            check("check repo from the cache: 0 requests", rc == 0 and ng.lines() == [], (err, ng.lines()))
            fresh()
            rc, out, err = run(small, "--format", "json")
            ng.reset()
            rc, out2, err = run(small, "--format", "json")
            j, j2 = json.loads(out), (json.loads(out2) if rc == 0 else {})
            check("cache hit: 0 requests", rc == 0 and ng.lines() == [] and
                  j2.get("remote") == {"requests": 0, "bytes": 0, "cache": "hit"}, (err, ng.lines(), j2.get("remote")))
            check("cache hit: the same answer", j2.get("model") == j.get("model")
                  and j2.get("tensors") == j.get("tensors") and j2.get("gguf") == j.get("gguf"))
            ng.reset()
            rc, out, err = run("hf:test/llama:Q8_0")
            rc, out, err = run("hf:test/llama:Q8_0")
            check("cache hit through the redirect: list + header, then 0 requests",
                  rc == 0 and len(ng.lines()) == 3 and out.endswith("Header from the cache: no HTTP request.\n"),
                  ng.lines())
            # stale: nginx answers the If-None-Match with a 304, no body
            entries = [os.path.join(cache_home, "clefrun", f) for f in os.listdir(os.path.join(cache_home, "clefrun"))]
            for e in entries:
                t = time.time() - 7200
                os.utime(e, (t, t))
            ng.reset()
            rc, out, err = run(small, "--format", "json")
            log = ng.lines()
            check("stale entry: one 304, 0 bytes", rc == 0 and [(x["status"], x["bytes"]) for x in log] == [(304, 0)]
                  and json.loads(out)["remote"]["cache"] == "revalidated", (err, log))

            # ---- --offline
            ng.reset()
            rc, out, err = run("hf:test/llama:Q8_0", "--offline", "--format", "json")
            check("offline: from the cache, 0 requests", rc == 0 and ng.lines() == [], (err, ng.lines()))
            rc, out, err = run("--model", "hf:test/llama:Q8_0", "--offline", "--rig", "rtx4090", command="check")
            check("offline check", rc == 0 and ng.lines() == [], (err, ng.lines()))
            rc, out, err = run("hf:test/big/Deci-Q8_0.gguf", "--offline")
            url = f"{base}/test/big/resolve/main/Deci-Q8_0.gguf"
            check("offline miss: exit 1, clear error", rc == 1 and err ==
                  f"clefrun: {url}: not in the cache ({cache_home}/clefrun)\n"
                  "clefrun: (--offline reads only the cache: run once without it)\n" and ng.lines() == [], err)

            # ---- --no-cache: the network, every time
            ng.reset()
            rc, out, err = run(small, "--no-cache", "--format", "json")
            check("no-cache", rc == 0 and len(ng.lines()) == 1, (err, ng.lines()))

            # ---- 404 behind the redirect: the repository's list instead
            ng.reset()
            rc, out, err = run("hf:test/llama/Llama-3.1-8B-Q2_K.gguf", "--no-cache")
            check("404 in a repository", rc == 1 and err ==
                  f"clefrun: {base}/test/llama/resolve/main/Llama-3.1-8B-Q2_K.gguf: HTTP 404: file or repository not found\n"
                  "clefrun: hf:test/llama has 3 GGUF files: Llama-3.1-8B-F16-00001-of-00002.gguf, "
                  "Llama-3.1-8B-Q4_K_M.gguf, Llama-3.1-8B-Q8_0.gguf\n", err)
        finally:
            ng.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
