#!/usr/bin/env python3
"""`clefrun inspect` end to end: local fixtures, then a real loopback HTTP
server (tests/support/http_server.py) with a Hugging Face-shaped repository and hostile
files. Checks stdout (JSON fields), stderr (exact messages) and exit codes.

The fault list of issue 3 (200 instead of 206, a truncated body, a wrong
Content-Range, a slow drip past the timeout, redirects to file:// and in a
loop, 401, 403, 404, 416, 500, wrong magic, 2^40 tensors), TLS failures,
proxies from the environment, and the header cache (hits without a request,
revalidation, --offline, --no-cache, a broken entry reported and replaced).
Every run gets its own XDG_CACHE_HOME, so no test sees another's cache.

  test_inspect.py CLEFRUN FIXTURES_DIR
"""
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

CLEFRUN, FIX = sys.argv[1:3]
check = T.check
CACHE_HOME = tempfile.mkdtemp(prefix="clefrun-inspect-cache-")
CACHE = os.path.join(CACHE_HOME, "clefrun")


def environment(env=None):
    # One cache for the runs of a test (CACHE_HOME), emptied by clear_cache().
    return T.clean_env(CACHE_HOME, XDG_CACHE_HOME=CACHE_HOME, **(env or {}))


def run(*args, env=None, command="inspect"):
    p = subprocess.run([CLEFRUN, command, *args], capture_output=True, text=True,
                       env=environment(env), timeout=60)
    return p.returncode, p.stdout, p.stderr


def clear_cache():
    shutil.rmtree(CACHE, ignore_errors=True)


def cache_files():
    return sorted(os.listdir(CACHE)) if os.path.isdir(CACHE) else []


def fixture(name):
    return os.path.join(FIX, name)


# ---- local files ------------------------------------------------------------------

rc, out, err = run(fixture("llama-3.1-8b.hdr.gguf"), "--header-only", "--format", "json")
check("json exit", rc == 0, err)
j = json.loads(out) if rc == 0 else {}
check("json schema", j.get("schema") == "clefrun.inspect/1")
check("params", j.get("model", {}).get("params") == 8030261248)
check("kv bytes at 8192", j.get("memory", {}).get("kv_bytes") == 1073741824, j.get("memory"))
check("kv per token", j.get("memory", {}).get("kv_bytes_per_token") == 131072)
check("weights exact", j.get("memory", {}).get("weights_bytes") == j.get("tensors", {}).get("bytes"))
types = {t["type"] for t in j.get("tensors", {}).get("by_type", [])}
check("types", types == {"F32", "Q4_K", "Q6_K"}, types)
check("metadata", j.get("metadata", {}).get("llama.block_count") == "32")

rc, out, err = run(fixture("qwen3.5-9b.hdr.gguf"), "--header-only", "--format", "json", "--ctx",
                   "262144", "--kv-type", "q8_0")
j = json.loads(out) if rc == 0 else {}
m = j.get("model", {})
check("hybrid", rc == 0 and m.get("layer_kinds") == "LLLF" * 8 and m.get("full_attention_interval") == 4)
# 8 layers × 4 heads × 256 × 2 (K, V) × 34/32 bytes × 262144 tokens
check("hybrid kv q8_0", j.get("memory", {}).get("kv_bytes") == 8 * 2 * 4 * 256 * 34 // 32 * 262144,
      j.get("memory"))

rc, out, err = run(fixture("gemma-3-4b.hdr.gguf"), "--header-only")
check("table", rc == 0 and re.search(r"\nsliding window +1024 tokens on 29 of 34 layers\n", out)
      and re.search(r"\nKV cache +334\.0 MiB +20\.0 KiB per token\n", out), out[:2000])

rc, out, err = run(fixture("llama-3.1-8b.hdr.gguf"))
check("strict exit", rc == 1, rc)
check("strict message", "lies past the end of the file" in err and "--header-only" in err, err)

rc, out, err = run("--model", fixture("llama-3.1-8b.hdr.gguf"), "--rig", "rtx4090", command="check")
check("strict check names check's option", rc == 1 and
      "'clefrun check --header-only' reads it" in err and "inspect" not in err, err)

for src in ("ftp://host/x.gguf", "FILE:///tmp/x.gguf", "s3://bucket/x.gguf"):
    rc, out, err = run(src)
    check(f"{src}: refused, exit 2", rc == 2 and "unsupported URL scheme" in err and
          "No such file" not in err, err)
for src in ("http://", "https://", "http:///x.gguf", "http://:8080/x.gguf", "http://user@/x.gguf"):
    rc, out, err = run(src)
    check(f"{src}: no host, exit 2", rc == 2 and err == f"clefrun: {src}: the URL has no host "
          "(expected http(s)://HOST[:PORT]/PATH.gguf)\n", err)
rc, out, err = run("--model", "ftp://host/x.gguf", "--rig", "rtx4090", command="check")
check("check --model ftp://: exit 2", rc == 2 and "unsupported URL scheme 'ftp'" in err, err)

rc, out, err = run("/nonexistent/x.gguf")
check("missing file", rc == 1 and err == "clefrun: /nonexistent/x.gguf: No such file or directory\n", err)

rc, out, err = run("llama-3.1-8b")
check("catalog id refused", rc == 2 and "is not a GGUF source" in err, err)

rc, out, err = run("hf:bad")
check("bad hf name", rc == 2 and err.startswith("clefrun: hf:bad: expected hf:OWNER/REPO"), err)

rc, out, err = run(fixture("llama-3.1-8b.hdr.gguf"), "--header-only", "--ctx", "200000")
check("ctx above max", rc == 2 and "above" in err, err)

rc, out, err = run(fixture("tiny-split-00001-of-00002.gguf"), "--format", "json")
j = json.loads(out) if rc == 0 else {}
check("split", rc == 0 and j["gguf"]["parts"] == 2 and j["gguf"]["tensor_count"] == 21, err)

rc, out, err = run(fixture("tiny-split-00002-of-00002.gguf"))
check("split part 2", rc == 2 and "give part 1" in err, err)

# ---- remote -------------------------------------------------------------------------

root = tempfile.mkdtemp(prefix="clefrun-inspect-")
try:
    for name in ("tiny-llama.gguf", "tiny-split-00001-of-00002.gguf", "tiny-split-00002-of-00002.gguf"):
        shutil.copy(fixture(name), root)
    shutil.copy(fixture("tiny-llama.gguf"), os.path.join(root, "tiny-Q4_K_M.gguf"))
    data = bytearray(open(fixture("tiny-llama.gguf"), "rb").read())
    hostile = bytearray(data)
    struct.pack_into("<Q", hostile, 8, 1 << 40)
    open(os.path.join(root, "count.gguf"), "wb").write(hostile)
    bad = bytearray(data)
    bad[0:4] = b"GGML"
    open(os.path.join(root, "magic.gguf"), "wb").write(bad)
    open(os.path.join(root, "page.gguf"), "wb").write(b"<!DOCTYPE html><html>" + b" " * 100)
    log = os.path.join(root, "log.jsonl")
    srv = T.LoopbackServer(root, log)
    try:
        port, base = srv.port, srv.base
        hf = {"HF_ENDPOINT": base}

        def log_lines():
            with open(log) as f:
                return [json.loads(x) for x in f if x.strip()]

        rc, out, err = run("hf:test/tiny", "--format", "json", env=hf)
        j = json.loads(out) if rc == 0 else {}
        files = {f["path"]: f for f in j.get("files", [])}
        check("repo list", rc == 0 and files.get("tiny-Q4_K_M.gguf", {}).get("quant") == "Q4_K_M", err)
        check("repo split grouped", files.get("tiny-split-00001-of-00002.gguf", {}).get("parts") == 2)

        open(log, "w").close()
        clear_cache()
        rc, out, err = run("hf:test/tiny:Q4_K_M", "--format", "json", env=hf)
        j = json.loads(out) if rc == 0 else {}
        lines = log_lines()
        check("hf quant", rc == 0 and j["location"].endswith("/test/tiny/resolve/main/tiny-Q4_K_M.gguf"), err)
        # The list, the resolve redirect, one range from the CDN.
        check("hf requests", len(lines) == 3 and j.get("remote", {}).get("requests") == 3,
              [x["path"] for x in lines])

        rc, out, err = run("hf:test/tiny:IQ1_S", env=hf)
        check("hf missing quant (a usage error: exit 2)", rc == 2 and err ==
              "clefrun: hf:test/tiny:IQ1_S: no GGUF file of quant IQ1_S (the repository has: Q4_K_M)\n", err)

        rc, out, err = run("hf:gated/tiny/tiny-llama.gguf", env=hf)
        check("gated without token", rc == 1 and err ==
              f"clefrun: {base}/gated/tiny/resolve/main/tiny-llama.gguf: HTTP 401: access denied (no credentials "
              "were sent)\nclefrun: (a gated or private repository: set HF_TOKEN, or log in with huggingface-cli)\n",
              err)

        rc, out, err = run("hf:gated/tiny/tiny-llama.gguf", env=dict(hf, HF_TOKEN="not-the-token"))
        check("gated with a refused token", rc == 1 and "the token was refused" in err
              and "not-the-token" not in err, err)

        open(log, "w").close()
        rc, out, err = run("hf:gated/tiny/tiny-llama.gguf", env=dict(hf, HF_TOKEN="secret-token"))
        lines = log_lines()
        check("gated with token", rc == 0, err)
        check("token not sent to the CDN", [x["auth"] for x in lines if x["path"].startswith("/cdn/")] == [False]
              and [x["auth"] for x in lines if "/resolve/" in x["path"]] == [True], lines)

        tokdir = tempfile.mkdtemp(dir=root)
        open(os.path.join(tokdir, "token"), "w").write("secret-token\n")
        rc, out, err = run("hf:gated/tiny/tiny-llama.gguf", env=dict(hf, HF_HOME=tokdir))
        check("token file under HF_HOME", rc == 0, err)

        rc, out, err = run("hf:test/missing:Q4_K_M", env=hf)
        check("missing repo", rc == 1 and "repository or revision 'main' not found" in err, err)

        # 404 on a file of a repository: what the repository has instead.
        rc, out, err = run("hf:test/tiny/nope.gguf", env=hf)
        check("404 file lists the repository", rc == 1 and err ==
              f"clefrun: {base}/test/tiny/resolve/main/nope.gguf: HTTP 404: file or repository not found\n"
              "clefrun: hf:test/tiny has 6 GGUF files: count.gguf, magic.gguf, page.gguf, "
              "tiny-Q4_K_M.gguf, tiny-llama.gguf, tiny-split-00001-of-00002.gguf\n", err)
        rc, out, err = run("hf:test/missing/nope.gguf", env=hf)
        check("404 file of a missing repository", rc == 1 and err ==
              f"clefrun: {base}/test/missing/resolve/main/nope.gguf: HTTP 404: file or repository not found\n"
              "clefrun: hf:test/missing: repository or revision 'main' not found\n", err)

        # The fault list: each its exact message, exit 1, within the timeouts.
        # The slow drip takes the low-speed window (20 s): it runs alongside.
        slow = subprocess.Popen([CLEFRUN, "inspect", base + "/slow/tiny-llama.gguf"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=environment())
        for path, want in (
                # Not Hugging Face: no token is ever sent here, so no HF_TOKEN hint.
                ("/status/401", "HTTP 401: access denied (no credentials were sent)"),
                ("/status/403", "HTTP 403: access denied (no credentials were sent)"),
                ("/retry/120", "HTTP 429: too many requests; the server asks to retry in 120 s"),
                ("/raw/http09", "the answer is not an HTTP response (Received HTTP/0.9 when not allowed)"),
                ("/raw/bigheader", "the response headers were refused: a header line longer than libcurl's "
                                   "100 KiB, or out of memory"),
                ("/badtotal/tiny-llama.gguf", "HTTP 206 with Content-Range bytes 0-82911/100 for a request of "
                                              "bytes 0-262143: it ends past the total size it gives"),
                ("/status/404", "HTTP 404: file or repository not found"),
                ("/status/500", "HTTP 500: server error"),
                ("/status/416", "HTTP 416: range not satisfiable (the file is shorter than its header says)"),
                ("/badrange/tiny-llama.gguf", "HTTP 206 with Content-Range bytes 7-82918/82912 for a request of "
                                              "bytes 0-262143: it starts elsewhere"),
                ("/loop", "too many redirects"),
                ("/tofile", "a redirect to a non-HTTP(S) URL was refused"),
                ("/files/count.gguf", "byte 8: tensor count 1099511627776 is above the limit of 65536"),
                ("/files/magic.gguf", "byte 0: not a GGUF file (magic 'GGML', expected 'GGUF')")):
            rc, out, err = run(base + path)
            # Messages with curl's own detail end "(detail)": compared up to it.
            line = "clefrun: " + base + path + ": " + want
            check("remote error " + path, rc == 1 and (err == line + "\n" or err.startswith(line + " (")), err)

        # URL schemes are case-insensitive (RFC 3986 section 3.1).
        for scheme in ("HTTP", "Http"):
            rc, out, err = run(f"{scheme}://127.0.0.1:{port}/files/tiny-llama.gguf", "--format", "json")
            j = json.loads(out) if rc == 0 else {}
            check(f"{scheme}:// is http", rc == 0 and j.get("gguf", {}).get("tensor_count") == 21 and
                  j.get("location") == base + "/files/tiny-llama.gguf", err)
        rc, out, err = run("--rig", "rtx4090", "--model", f"HTTP://127.0.0.1:{port}/files/tiny-llama.gguf",
                           command="check")
        check("check --model HTTP://", rc == 0, err)

        rc, out, err = run(base + "/truncated/tiny-llama.gguf")
        check("truncated body", rc == 1 and err.startswith(
            f"clefrun: {base}/truncated/tiny-llama.gguf: the connection closed before the body was complete"), err)

        rc, out, err = run(base + "/files/page.gguf")
        check("a web page", rc == 1 and err ==
              f"clefrun: {base}/files/page.gguf: byte 0: not a GGUF file (magic '<!DO', expected 'GGUF')\n"
              "clefrun: (a web page, not the file: on Hugging Face use the /resolve/ URL, or "
              "hf:OWNER/REPO/FILE.gguf)\n", err)

        tls = f"https://127.0.0.1:{port}/files/tiny-llama.gguf"
        rc, out, err = run(tls)
        check("TLS failure", rc == 1 and err.startswith(f"clefrun: {tls}: TLS failure"), err)

        open(log, "w").close()
        rc, out, err = run(base + "/norange/tiny-llama.gguf", "--format", "json", "--no-cache")
        j = json.loads(out) if rc == 0 else {}
        check("server ignoring Range (200 instead of 206)", rc == 0 and j["gguf"]["file_bytes"] == 82912, err)

        # Proxies from the environment: the server is its own proxy.
        open(log, "w").close()
        rc, out, err = run("http://models.example.invalid/files/tiny-llama.gguf", "--no-cache",
                           env={"http_proxy": base})
        # The server logs a request after answering it, so the line of the
        # previous case may land after the truncation above: leave it out.
        lines = [x for x in log_lines() if not x["path"].startswith("/norange/")]
        check("http_proxy honoured", rc == 0 and [x["host"] for x in lines] == ["models.example.invalid"],
              (err, lines))

        # ---- the header cache ----------------------------------------------------------
        clear_cache()
        url = base + "/files/tiny-llama.gguf"
        rc, out, err = run(url, "--offline")
        check("offline miss", rc == 1 and err ==
              f"clefrun: {url}: not in the cache ({CACHE})\n"
              "clefrun: (--offline reads only the cache: run once without it)\n", err)
        rc, out, err = run(url, "--offline", "--no-cache")
        check("offline with no-cache", rc == 2 and "cannot go with --no-cache" in err, err)

        open(log, "w").close()
        rc, out, err = run(url, "--no-cache", "--format", "json")
        check("no-cache reads the network", rc == 0 and json.loads(out)["remote"]["cache"] == "off"
              and len(log_lines()) == 1, err)
        check("no-cache writes nothing", cache_files() == [], cache_files())

        open(log, "w").close()
        rc, out, err = run(url, "--format", "json")
        j = json.loads(out) if rc == 0 else {}
        check("first read: a miss", rc == 0 and j["remote"] == {"requests": 1, "bytes": 82912, "cache": "miss"}
              and len(cache_files()) == 1 and err == "", (err, j.get("remote")))
        open(log, "w").close()
        rc, out2, err = run(url, "--format", "json")
        j2 = json.loads(out2) if rc == 0 else {}
        check("second read: a hit, no request", rc == 0 and j2["remote"] == {"requests": 0, "bytes": 0, "cache": "hit"}
              and log_lines() == [], (err, j2.get("remote"), log_lines()))
        check("a hit is the same model", {k: v for k, v in j2.items() if k != "remote"} ==
              {k: v for k, v in j.items() if k != "remote"})
        rc, out, err = run(url)
        check("hit in the table", rc == 0 and out.endswith("\nHeader from the cache: no HTTP request.\n"), out[-200:])
        rc, out, err = run(url, "--offline", "--format", "json")
        check("offline hit", rc == 0 and json.loads(out)["remote"]["requests"] == 0, err)

        entry = os.path.join(CACHE, cache_files()[0])
        old = os.path.getmtime(entry) - 7200
        os.utime(entry, (old, old))
        open(log, "w").close()
        rc, out, err = run(url)
        check("stale entry revalidated", rc == 0 and [x["status"] for x in log_lines()] == [304]
              and out.endswith("\nHeader from the cache, confirmed by the server: 1 HTTP request, 0 bytes.\n"),
              (out[-200:], log_lines()))

        raw = bytearray(open(entry, "rb").read())
        raw[-1] ^= 1
        open(entry, "wb").write(raw)
        open(log, "w").close()
        rc, out, err = run(url, "--format", "json")
        check("broken entry reported, replaced", rc == 0 and err ==
              f"clefrun: warning: broken cache entry {entry}: checksum mismatch (deleted)\n"
              and len(log_lines()) == 1 and json.loads(out)["remote"]["cache"] == "miss", err)
        rc, out, err = run(url, "--format", "json")
        check("then a clean hit", rc == 0 and err == "" and json.loads(out)["remote"]["cache"] == "hit", err)

        # A cached file that the reader refuses (a hostile header planted in a
        # well-formed entry) is never trusted either.
        raw = bytearray(open(entry, "rb").read())
        payload_at = raw.index(b"\n\nGGUF") + 2
        hostile = bytearray(raw[payload_at:])
        struct.pack_into("<Q", hostile, 8, 1 << 40)
        pre = raw[:payload_at].decode()
        lines_ = [x for x in pre.split("\n") if x and not x.startswith("check ")]
        body = ("\n".join(lines_) + "\n").encode()
        h = 0xcbf29ce484222325
        for byte in body + bytes(hostile):
            h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
        open(entry, "wb").write(body + b"check %016x\n\n" % h + bytes(hostile))
        rc, out, err = run(url, "--format", "json")
        check("hostile cached header refused", rc == 0 and err.startswith(
            f"clefrun: warning: broken cache entry {entry}: {url}: byte 8: tensor count 1099511627776")
              and json.loads(out)["remote"]["cache"] == "miss", err)

        # hf:OWNER/REPO:QUANT: the list and the header both cached.
        clear_cache()
        rc, out, err = run("hf:test/tiny:Q4_K_M", "--format", "json", env=hf)
        open(log, "w").close()
        rc, out, err = run("hf:test/tiny:Q4_K_M", "--format", "json", env=hf)
        check("hf quant from the cache", rc == 0 and json.loads(out)["remote"]["requests"] == 0
              and log_lines() == [], (err, log_lines()))
        rc, out, err = run("hf:test/tiny", "--offline", env=hf)
        check("hf list offline", rc == 0 and "tiny-Q4_K_M.gguf" in out, err)
        rc, out, err = run("hf:test/tiny:Q4_K_M", "--offline", "--revision", "v2", env=hf)
        check("hf offline, another revision", rc == 1 and "/api/models/test/tiny/tree/v2?recursive=true: "
              "not in the cache" in err, err)
        rc, out, err = run("--model", "hf:test/tiny:Q4_K_M", "--offline", "--rig", "rtx4090", env=hf,
                           command="check")
        check("check --offline", rc == 0, err)
        rc, out, err = run("--model", "hf:test/tiny/tiny-llama.gguf", "--offline", "--rig", "rtx4090", env=hf,
                           command="check")
        check("check --offline, not cached", rc == 1 and "not in the cache" in err, err)

        rc_slow = slow.wait(timeout=60)
        err = slow.stderr.read()
        check("slow drip times out", rc_slow == 1 and err ==
              f"clefrun: {base}/slow/tiny-llama.gguf: timed out (less than 1024 bytes/s for 20 s)\n", err)
    finally:
        srv.stop()
finally:
    shutil.rmtree(root, ignore_errors=True)

# ---- strangers' text: escapes, UTF-8, credentials (docs/security.md 14, 15) ---------

def shown_safely(name, raw, fmt):
    """Output that cannot drive a terminal: valid UTF-8, no C0 control but
    the layout's own (newline; CR in CSV; tab in JSON), no DEL, no C1, no
    line separator or bidirectional override."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return check(name, False, "not UTF-8: %s" % e)
    layout = {"json": "\n\t", "csv": "\n\r"}.get(fmt, "\n")
    bad = sorted({hex(ord(c)) for c in text if (ord(c) < 0x20 and c not in layout) or 0x7f <= ord(c) <= 0x9f
                  or ord(c) in (0x2028, 0x2029) or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})
    check(name, not bad, bad)
    return text


def run_bytes(*args, env=None):
    p = subprocess.run([CLEFRUN, *args], capture_output=True, env=environment(env), timeout=60)
    return p.returncode, p.stdout, p.stderr


HOSTILE = fixture("hostile-names.hdr.gguf")
NAME = "Evil\x1b]0;pwned\x07\x1b[2J\nclefrun: forged line \ufffd\ufffd \x9b31m \x7f \u202eend"
for cmd in (["check", "--model", HOSTILE, "--header-only", "--rig", "rtx4090"],
            ["check", "--model", HOSTILE, "--header-only", "--rig", "rtx4090", "--explain"],
            ["inspect", HOSTILE, "--header-only"]):
    for fmt in ("table", "json", "csv", "markdown"):
        rc, out, err = run_bytes(*cmd, "--format", fmt)
        what = "hostile names: %s %s" % (" ".join(cmd[:1] + cmd[-1:]), fmt)
        check(what + ": exit", rc == 0, err)
        text = shown_safely(what + ": stdout", out, fmt)
        shown_safely(what + ": stderr", err, "table")
        if fmt == "json" and text:
            j = json.loads(text)
            got = j.get("model_info", j.get("model", {})).get("name")
            # JSON keeps every character (as an escape); only the bytes that
            # are not UTF-8 became U+FFFD.
            check(what + ": name round-trips", got == NAME, repr(got))
        elif text:
            check(what + ": name escaped", "Evil\\x1b]0;pwned\\x07\\x1b[2J\\x0aclefrun" in text
                  or "--explain" in cmd or fmt == "csv" and cmd[0] == "check", text[:300])

rc, out, err = run_bytes("inspect", b"/nonexistent/\x1b]0;pwned\x07\xff.gguf")
text = shown_safely("escaped path in a message", err, "table")
check("escaped path in a message: text", rc == 1 and text ==
      "clefrun: /nonexistent/\\x1b]0;pwned\\x07\ufffd.gguf: No such file or directory\n", text)

root = tempfile.mkdtemp(prefix="clefrun-strangers-")
try:
    shutil.copy(fixture("tiny-llama.gguf"), root)
    # A listing path that is not UTF-8, and one with a C1 control (CSI);
    # paths with C0 controls are dropped from a listing (hf.c safe_path).
    shutil.copy(fixture("tiny-llama.gguf"), os.path.join(root.encode(), b"bad-\xff\xfe-Q4_0.gguf"))
    shutil.copy(fixture("tiny-llama.gguf"), os.path.join(root, "c1-\x9b2J-Q8_0.gguf"))
    srv = T.LoopbackServer(root, os.path.join(root, "log"))
    try:
        port, base = srv.port, srv.base
        hf = {"HF_ENDPOINT": base}
        for fmt in ("table", "json", "csv", "markdown"):
            rc, out, err = run_bytes("inspect", "hf:test/strangers", "--no-cache", "--format", fmt, env=hf)
            text = shown_safely("listing paths: " + fmt, out, fmt)
            check("listing paths: %s exit" % fmt, rc == 0, err)
            if fmt == "json" and text:
                paths = sorted(f["path"] for f in json.loads(text)["files"])
                check("listing paths: json", paths == ["bad-\ufffd\ufffd-Q4_0.gguf", "c1-\x9b2J-Q8_0.gguf",
                                                       "tiny-llama.gguf"], paths)
            elif text:
                check("listing paths: " + fmt, "c1-\\u009b2J-Q8_0.gguf" in text
                      and "bad-\ufffd\ufffd-Q4_0.gguf" in text, text)

        # Credentials in a URL reach the server and nothing else.
        clear_cache()
        secret = "s3cret-pass"
        url = f"http://user:{secret}@127.0.0.1:{port}/files/tiny-llama.gguf"
        shown = f"http://***@127.0.0.1:{port}/files/tiny-llama.gguf"
        html = os.path.join(root, "report.html")
        outputs = []
        for args in (["inspect", url], ["inspect", url, "--format", "json"], ["inspect", url, "--format", "csv"],
                     ["check", "--model", url, "--rig", "rtx4090"],
                     ["check", "--model", url, "--rig", "rtx4090", "--format", "json"],
                     ["report", "--model", url, "--rig", "rtx4090", "-o", html],
                     ["inspect", f"http://user:{secret}@127.0.0.1:{port}/status/404"],
                     ["inspect", f"http://{secret}@127.0.0.1:{port}/files/page.gguf"]):
            rc, out, err = run_bytes(*args)
            outputs.append((args, rc, out + err))
        check("credentials: reads succeed", [rc for _, rc, _ in outputs] == [0, 0, 0, 0, 0, 0, 1, 1],
              [(a[0], rc, o[-200:]) for a, rc, o in outputs])
        leaks = [a[0] for a, _, o in outputs if secret.encode() in o or b"user:" in o]
        check("credentials: not in stdout or stderr", not leaks, leaks)
        j = json.loads(outputs[1][2])
        check("credentials: json source and location", j["source"] == shown and j["location"] == shown,
              (j["source"], j["location"]))
        check("credentials: table source row", ("source             " + shown + "\n").encode() in outputs[0][2],
              outputs[0][2][:300])
        check("credentials: message", outputs[6][2].decode() ==
              f"clefrun: http://***@127.0.0.1:{port}/status/404: HTTP 404: file or repository not found\n",
              outputs[6][2])
        page = open(html, "rb").read() if os.path.exists(html) else b""
        check("credentials: report", page and secret.encode() not in page and shown.encode() in page
              and b"clefrun report --model " + shown.encode() in page, len(page))
        entries = cache_files()
        stored = b"".join(open(os.path.join(CACHE, f), "rb").read() for f in entries)
        check("credentials: cache entry", len(entries) == 1 and secret.encode() not in stored
              and b"\nurl " + shown.encode() + b"\n" in stored, (entries, stored[:200]))
        rc, out, err = run_bytes("inspect", url, "--offline")
        check("credentials: the entry serves the URL again", rc == 0, err)
    finally:
        srv.stop()
finally:
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(CACHE_HOME, ignore_errors=True)

sys.exit(T.summary())
