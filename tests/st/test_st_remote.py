#!/usr/bin/env python3
"""Safetensors checkpoints over HTTP: hf:OWNER/REPO against the loopback server
(tests/support/http_server.py), which serves a checkpoint this test writes
(tests/st/make-fixture: config.json, the index, two shards of 16 MiB each, as
sparse files). `clefrun check --engine vllm` must read config.json, the index
and only each shard's header: a bounded number of requests, every shard request
a Range from byte 0, far fewer body bytes than the shards hold, and the same
figures as the same checkpoint read from the local directory. A second run
reads config.json, the index and the shard headers from the header cache
($XDG_CACHE_HOME/clefrun): no request, the same figures; with the entries
stale, one conditional request each and no body. --offline reads the cache
and makes no request (and fails naming the file when the cache lacks it);
--no-cache makes the first run's requests and leaves no entry. The token goes to the
endpoint only, never to the CDN host it redirects to. Errors name the URL.

  test_st_remote.py CLEFRUN
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import clefrun_test as T  # noqa: E402

CLEFRUN = sys.argv[1]
check = T.check
fixture = T.load_script(os.path.join(HERE, "make-fixture"), "make_fixture")

ARGS = ["check", "--engine", "vllm", "--rig", "rtx4090", "--rig", "h100-sxm", "--max-model-len", "4096",
        "--format", "json"]


def run(model, tmp, env=None, extra=()):
    e = T.clean_env(tmp, **(env or {}))
    p = subprocess.run([CLEFRUN, *ARGS, *extra, "--model", model], capture_output=True, text=True, env=e,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def log_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    tmp = tempfile.mkdtemp(prefix="clefrun-st-remote.")
    try:
        root = os.path.join(tmp, "root")
        total = fixture.write(root, 262144)
        shard_bytes = sum(os.path.getsize(os.path.join(root, f)) for f in os.listdir(root)
                          if f.endswith(".safetensors"))
        code, local_out, err = run(root, tmp)
        check("local directory: exit 0", code == 0, err)
        local = json.loads(local_out) if code == 0 else {}
        check("local directory: weights are the tensor bytes", local.get("weights_bytes") == total,
              (local.get("weights_bytes"), total))

        log = os.path.join(tmp, "requests.log")
        with T.LoopbackServer(root, log) as srv:
            env = {"HF_ENDPOINT": srv.base, "HF_TOKEN": "secret-token"}
            code, out, err = run("hf:test/tiny", tmp, env)
            check("hf: exit 0", code == 0, err)
            remote = json.loads(out) if code == 0 else {}
            check("hf: the same figures as the local directory",
                  remote.get("rows") == local.get("rows") and remote.get("weights_bytes") == total,
                  json.dumps(remote)[:400])
            reqs = log_lines(log)
            shard_reqs = [r for r in reqs if r["path"].startswith("/cdn/") and r["path"].endswith(".safetensors")]
            body = sum(r["bytes"] for r in reqs)
            # config.json and the index: a redirect and a GET each; each shard a
            # redirect and one Range request (its header is below 64 KiB).
            check("hf: at most 8 requests", len(reqs) <= 8, [(r["path"], r["range"]) for r in reqs])
            check("hf: one Range request per shard", len(shard_reqs) == 2, [r["path"] for r in shard_reqs])
            check("hf: shard requests are Ranges from byte 0",
                  all((r["range"] or "").startswith("bytes=0-") for r in shard_reqs), [r["range"] for r in shard_reqs])
            check("hf: at most 64 KiB of each shard", all(r["bytes"] <= 65536 for r in shard_reqs),
                  [r["bytes"] for r in shard_reqs])
            check("hf: body bytes far below the shards' %d" % shard_bytes, body < 200000, body)
            check("hf: the token goes to the endpoint",
                  all(r["auth"] for r in reqs if "/resolve/" in r["path"]), reqs)
            check("hf: the token never goes to the CDN host",
                  not any(r["auth"] for r in reqs if r["path"].startswith("/cdn/")), reqs)
            cache = os.path.join(tmp, "cache", "clefrun")
            entries = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
            check("hf: the cache holds two documents and two shard headers",
                  sum(e.startswith("doc-") for e in entries) == 2 and sum(e.startswith("st-") for e in entries) == 2,
                  entries)
            st_sizes = [os.path.getsize(os.path.join(cache, e)) for e in entries if e.startswith("st-")]
            check("hf: a cached shard header is the header, not the shard", all(n < 65536 for n in st_sizes), st_sizes)

            # The second run: everything from the cache, no request.
            os.unlink(log)
            code, out2, err = run("hf:test/tiny", tmp, env)
            check("cache: exit 0", code == 0, err)
            reqs2 = log_lines(log) if os.path.exists(log) else []
            check("cache: fewer requests than the first run (%d)" % len(reqs), len(reqs2) < len(reqs),
                  [(r["path"], r["range"]) for r in reqs2])
            check("cache: no request at all", len(reqs2) == 0, [(r["path"], r["range"]) for r in reqs2])
            check("cache: the same figures", json.loads(out2 or "{}") == remote if code == 0 else False, out2[:300])

            # --offline: the cache only. With the entries there, no request
            # and the same figures; with an empty cache, no request either
            # and an error that names the file and says why.
            os.unlink(log) if os.path.exists(log) else None
            code, out_off, err = run("hf:test/tiny", tmp, env, ["--offline"])
            reqs_off = log_lines(log) if os.path.exists(log) else []
            check("offline: exit 0 from the cache", code == 0, err)
            check("offline: no request", len(reqs_off) == 0, [(r["path"], r["range"]) for r in reqs_off])
            check("offline: the same figures", code == 0 and json.loads(out_off or "{}") == remote, out_off[:300])
            empty = dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache-empty"))
            code, out_e, err = run("hf:test/tiny", tmp, empty, ["--offline"])
            reqs_off = log_lines(log) if os.path.exists(log) else []
            check("offline, empty cache: exit 1", code == 1, (code, err))
            check("offline, empty cache: no request", len(reqs_off) == 0, [r["path"] for r in reqs_off])
            check("offline, empty cache: the message names config.json and --offline",
                  "config.json" in err and "--offline" in err, err)
            check("offline, empty cache: nothing on stdout", out_e == "", out_e)
            # --no-cache: the first run's requests again, the same figures, no entry written.
            nocache_dir = os.path.join(tmp, "cache-nocache")
            code, out_nc, err = run("hf:test/tiny", tmp, dict(env, XDG_CACHE_HOME=nocache_dir), ["--no-cache"])
            reqs_nc = log_lines(log) if os.path.exists(log) else []
            check("no-cache: exit 0, the same figures", code == 0 and json.loads(out_nc or "{}") == remote, err)
            check("no-cache: the first run's %d requests" % len(reqs), len(reqs_nc) == len(reqs),
                  [(r["path"], r["range"]) for r in reqs_nc])
            check("no-cache: shard requests are Ranges of at most 64 KiB",
                  all((r["range"] or "").startswith("bytes=0-") and r["bytes"] <= 65536
                      for r in reqs_nc if r["path"].startswith("/cdn/") and r["path"].endswith(".safetensors")),
                  [(r["path"], r["range"], r["bytes"]) for r in reqs_nc])
            written = [f for _, _, fs in os.walk(nocache_dir) for f in fs] if os.path.isdir(nocache_dir) else []
            check("no-cache: no cache entry written", written == [], written)
            code, out_b, err = run("hf:test/tiny", tmp, env, ["--offline", "--no-cache"])
            check("offline with no-cache: refused (exit 2) with the reason",
                  code == 2 and "cannot go with --no-cache" in err and out_b == "", (code, err))
            os.unlink(log) if os.path.exists(log) else None

            # Stale entries (mtime 30 days back): a conditional
            # request each, answered without a body.
            for e in entries:
                old = os.path.getmtime(os.path.join(cache, e)) - 30 * 86400
                os.utime(os.path.join(cache, e), (old, old))
            os.unlink(log) if os.path.exists(log) else None
            code, out3, err = run("hf:test/tiny", tmp, env)
            check("stale cache: exit 0, the same figures", code == 0 and json.loads(out3 or "{}") == remote, err)
            reqs3 = log_lines(log) if os.path.exists(log) else []
            check("stale cache: conditional requests only",
                  len(reqs3) > 0 and all(r["inm"] for r in reqs3), [(r["path"], r["inm"]) for r in reqs3])
            check("stale cache: no shard body", sum(r["bytes"] for r in reqs3 if "/cdn/" in r["path"]) == 0,
                  [(r["path"], r["bytes"]) for r in reqs3])

            # A broken entry is replaced, not trusted.
            st0 = [e for e in entries if e.startswith("st-")][0]
            with open(os.path.join(cache, st0), "r+b") as f:
                f.seek(-3, 2)
                f.write(b"zzz")
            code, out4, err = run("hf:test/tiny", tmp, env)
            check("broken entry: exit 0, the same figures", code == 0 and json.loads(out4 or "{}") == remote, err)
            check("broken entry: said on stderr", "broken cache entry" in err, err)
            env = dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache-errors"))

            # A missing shard, a repository without config.json: errors with the URL.
            os.rename(os.path.join(root, "model-00002-of-00002.safetensors"), os.path.join(root, "gone"))
            code, out, err = run("hf:test/tiny", tmp, {"HF_ENDPOINT": srv.base,
                                                       "XDG_CACHE_HOME": os.path.join(tmp, "cache-errors")})
            check("missing shard: exit 1", code == 1, (code, err))
            check("missing shard: the message names the URL",
                  "/test/tiny/resolve/main/model-00002-of-00002.safetensors" in err and "404" in err, err)
            check("missing shard: nothing on stdout", out == "", out)
            os.rename(os.path.join(root, "config.json"), os.path.join(root, "config.gone"))
            code, out, err = run("hf:test/tiny", tmp, {"HF_ENDPOINT": srv.base,
                                                       "XDG_CACHE_HOME": os.path.join(tmp, "cache-errors2")})
            check("no config.json: exit 1 naming it", code == 1 and "config.json" in err, (code, err))
            code, out, err = run("hf:test/tiny/x.gguf", tmp, {"HF_ENDPOINT": srv.base})
            check("hf: a file name is refused (exit 2)", code == 2 and "whole repository" in err, (code, err))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
