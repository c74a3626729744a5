#!/usr/bin/env python3
"""`clefrun inspect` end to end: local fixtures, then a real loopback HTTP
server (http_server.py) with a Hugging Face-shaped repository and hostile
files. Checks stdout (JSON fields), stderr (exact messages) and exit codes.

  test_inspect.py CLEFRUN FIXTURES_DIR HTTP_SERVER_PY
"""
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile

CLEFRUN, FIX, SERVER = sys.argv[1:4]
failures = []


def run(*args, env=None):
    e = dict(os.environ)
    for k in ("HF_TOKEN", "HF_ENDPOINT", "HF_HOME", "HF_TOKEN_PATH"):
        e.pop(k, None)
    e["HOME"] = tempfile.gettempdir()
    e.update(env or {})
    p = subprocess.run([CLEFRUN, "inspect", *args], capture_output=True, text=True, env=e,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


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
    log = os.path.join(root, "log.jsonl")
    srv = subprocess.Popen([sys.executable, SERVER, "--root", root, "--log", log],
                           stdout=subprocess.PIPE, text=True)
    try:
        port = int(srv.stdout.readline().split()[1])
        base = f"http://127.0.0.1:{port}"
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
        rc, out, err = run("hf:test/tiny:Q4_K_M", "--format", "json", env=hf)
        j = json.loads(out) if rc == 0 else {}
        lines = log_lines()
        check("hf quant", rc == 0 and j["location"].endswith("/test/tiny/resolve/main/tiny-Q4_K_M.gguf"), err)
        # The list, the resolve redirect, one range from the CDN.
        check("hf requests", len(lines) == 3 and j.get("remote", {}).get("requests") == 3,
              [x["path"] for x in lines])

        rc, out, err = run("hf:test/tiny:IQ1_S", env=hf)
        check("hf missing quant", rc == 1 and err ==
              "clefrun: hf:test/tiny:IQ1_S: no GGUF file of quant IQ1_S (the repository has: Q4_K_M)\n", err)

        rc, out, err = run("hf:gated/tiny/tiny-llama.gguf", env=hf)
        check("gated without token", rc == 1 and "HTTP 401: access denied" in err and "HF_TOKEN" in err, err)

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

        for path, want in (
                ("/status/404", "HTTP 404: not found"),
                ("/status/403", "HTTP 403: access denied"),
                ("/status/500", "HTTP 500: server error"),
                ("/status/416", "HTTP 416: range not satisfiable"),
                ("/badrange/tiny-llama.gguf", "HTTP 206 with Content-Range bytes 7-82918 for a request of bytes 0-262143"),
                ("/loop", "too many redirects"),
                ("/tofile", "a redirect to a non-HTTP(S) URL was refused"),
                ("/files/count.gguf", "byte 8: tensor count 1099511627776 is above the limit of 65536"),
                ("/files/magic.gguf", "byte 0: not a GGUF file (magic 'GGML', expected 'GGUF')")):
            rc, out, err = run(base + path)
            check("remote error " + path, rc == 1 and err.startswith("clefrun: " + base + path + ": " + want), err)

        rc, out, err = run(base + "/norange/tiny-llama.gguf", "--format", "json")
        check("server ignoring Range", rc == 0, err)
    finally:
        srv.terminate()
        srv.wait(timeout=10)
finally:
    shutil.rmtree(root, ignore_errors=True)

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
