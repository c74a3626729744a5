#!/usr/bin/env python3
"""Hostile model stores and a hostile Ollama registry against the clefrun binary.

    hostile_stores.py CLEFRUN

Every case writes an Ollama store (tests/support/stores.py) or serves one from the loopback
server (tests/support/http_server.py, its /v2/ registry routes), runs `clefrun check --model
ollama:...` (and `models --local`), and checks: the exit code (1: a bad store, never a crash or a
signal), that stderr names the manifest's path or URL and the JSON path, that nothing outside
the store was read (a digest with ../ never becomes a path), that no terminal escape reaches the
output, and that a broken file is a row of `models --local`, not the end of it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import clefrun_test  # noqa: E402
from harness import check, env_for, failures  # noqa: E402

if len(sys.argv) != 2:
    print(__doc__)
    sys.exit(2)
CLEFRUN = os.path.abspath(sys.argv[1])
STORES = os.path.join(HERE, "..", "support", "stores.py")
TINY = os.path.join(HERE, "..", "gguf", "fixtures", "tiny-llama.gguf")
MODEL = "application/vnd.ollama.image.model"
HEX = "1" * 64


def store(root, name, **kw):
    args = [sys.executable, STORES, "ollama", root, "--gguf", TINY, "--name", name]
    for k, v in kw.items():
        args += ["--" + k.replace("_", "-"), v]
    subprocess.run(args, check=True)


def raw_manifest(root, name, text):
    """A manifest of these bytes (NUL and all) for library/NAME:latest."""
    d = os.path.join(root, "manifests", "registry.ollama.ai", "library", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "latest"), "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape"))


def manifest(layers, **extra):
    d = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
         "layers": layers}
    d.update(extra)
    return json.dumps(d)


def run(tmp, args, env_extra):
    env = env_for(tmp)
    env.update(env_extra)
    p = subprocess.run([CLEFRUN] + args, capture_output=True, env=env, timeout=120, cwd=tmp)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# (name, manifest text, what stderr must say)
LOCAL = [
    ("array", "[1]", "expected a JSON object"),
    ("string", '"GGUF"', "expected a JSON object"),
    ("garbage", "\x00\x01\x02 not json", "invalid JSON at byte"),
    ("cut", '{"layers":[{"mediaType":', "invalid JSON at byte"),
    ("nolayers", '{"schemaVersion":2}', "layers: missing"),
    ("layersobj", '{"layers":{"0":1}}', "layers: expected an array"),
    ("layerstr", '{"layers":["x"]}', "layers[0]: expected an object"),
    ("nomodel", manifest([{"mediaType": "application/vnd.ollama.image.license", "digest": "sha256:" + HEX,
                           "size": 3}]), "no layer of type " + MODEL),
    ("traversal", manifest([{"mediaType": MODEL, "digest": "sha256:../../../../../../etc/passwd", "size": 1}]),
     "layers[0].digest: expected sha256: and 64 hex digits"),
    ("traversal2", manifest([{"mediaType": MODEL, "digest": "sha256:" + "1" * 60 + "/../", "size": 1}]),
     "layers[0].digest"),
    ("sha512", manifest([{"mediaType": MODEL, "digest": "sha512:" + HEX, "size": 1}]), "layers[0].digest"),
    ("negsize", manifest([{"mediaType": MODEL, "digest": "sha256:" + HEX, "size": -5}]), "layers[0].size"),
    ("hugesize", manifest([{"mediaType": MODEL, "digest": "sha256:" + HEX, "size": 1e300}]), "layers[0].size"),
    ("strsize", manifest([{"mediaType": MODEL, "digest": "sha256:" + HEX, "size": "82912"}]), "layers[0].size"),
    ("escape", manifest([{"mediaType": "\x1b[31m" + MODEL, "digest": "sha256:../\x1b]0;pwned\x07", "size": 1}]),
     "layers[0].digest"),
    ("deep", "[" * 5000, "nested deeper"),
]


def local_cases(tmp):
    root = os.path.join(tmp, "ollama")
    store(root, "good:1b", params='{"num_ctx": 1024}')
    for name, text, _ in LOCAL:
        raw_manifest(root, "h-" + name, text)
    # A params layer that is not options, a model layer that is not GGUF, a missing blob.
    store(root, "badparams", params='{"num_ctx": "lots"}')
    store(root, "missingblob", digest_of_model="sha256:" + "9" * 64)
    env = {"OLLAMA_MODELS": root}
    for name, _, want in LOCAL:
        rc, out, err = run(tmp, ["check", "--model", "ollama:h-" + name, "--rig", "rtx4090"], env)
        where = "manifests/registry.ollama.ai/library/h-%s/latest" % name
        check(rc == 1, "local %s: exit %d, expected 1 (%s)" % (name, rc, err.strip()))
        check(where in err, "local %s: stderr does not name the manifest: %s" % (name, err.strip()))
        check(want in err, "local %s: stderr does not say '%s': %s" % (name, want, err.strip()))
        check("\x1b" not in err + out and "\x07" not in err + out, "local %s: a terminal escape reached the output" % name)
        check(out == "", "local %s: stdout not empty" % name)
    rc, out, err = run(tmp, ["check", "--model", "ollama:badparams", "--rig", "rtx4090"], env)
    check(rc == 1 and "num_ctx: expected a whole number" in err and "/blobs/sha256-" in err,
          "params not options: exit %d, %s" % (rc, err.strip()))
    rc, out, err = run(tmp, ["check", "--model", "ollama:missingblob", "--rig", "rtx4090"], env)
    check(rc == 1 and "is not in the store" in err and "ollama pull missingblob" in err,
          "missing blob: exit %d, %s" % (rc, err.strip()))
    # The model blob replaced by a web page and by nothing at all.
    mpath = os.path.join(root, "manifests", "registry.ollama.ai", "library", "good", "1b")
    with open(mpath) as f:
        digest = json.load(f)["layers"][0]["digest"]
    blob = os.path.join(root, "blobs", digest.replace(":", "-"))
    shutil.copy(blob, blob + ".keep")
    with open(blob, "r+b") as f:
        f.write(b"<html>")
    rc, out, err = run(tmp, ["check", "--model", "ollama:good:1b", "--rig", "rtx4090"], env)
    check(rc == 1 and "ollama:good:1b: model layer: " in err and blob in err and "not a GGUF" in err,
          "blob not GGUF: exit %d, %s" % (rc, err.strip()))
    os.truncate(blob, 0)
    rc, out, err = run(tmp, ["check", "--model", "ollama:good:1b", "--rig", "rtx4090"], env)
    check(rc == 1 and "the manifest says" in err, "empty blob: exit %d, %s" % (rc, err.strip()))
    shutil.move(blob + ".keep", blob)
    rc, out, err = run(tmp, ["check", "--model", "ollama:good:1b", "--rig", "rtx4090"], env)
    check(rc == 0 and "num_ctx 1024" in out, "good model: exit %d, %s" % (rc, err.strip()))
    # models --local: every broken manifest is a row; the good model is listed; exit 0.
    rc, out, err = run(tmp, ["models", "--local", "--format", "json"], env)
    check(rc == 0, "models --local over the hostile store: exit %d, %s" % (rc, err.strip()))
    if rc == 0:
        rows = {m["source"]: m for m in json.loads(out)["models"]}
        check(rows.get("ollama:good:1b", {}).get("error", "x") is None, "models --local: good:1b not read")
        for name, _, want in LOCAL:
            r = rows.get("ollama:h-%s:latest" % name)
            check(r is not None and r["error"] and want in r["error"],
                  "models --local: h-%s not listed with its error (%s)" % (name, r))
    # No file outside the store was opened: /etc/passwd's bytes never appear.
    check(all("root:" not in x for x in (out, err)), "a file outside the store was read")


def registry_cases(tmp):
    www = os.path.join(tmp, "www")
    reg = os.path.join(www, "ollama")
    os.makedirs(reg)
    for name, text, _ in LOCAL:
        raw_manifest(reg, "r-" + name, text)
    store(reg, "good:1b", params='{"num_ctx": 512}')
    # A manifest above the 1 MiB cap.
    raw_manifest(reg, "big", '{"layers":[],"pad":"' + "x" * (2 << 20) + '"}')
    server = clefrun_test.LoopbackServer(www, os.path.join(tmp, "server.log"))
    try:
        env = {"OLLAMA_MODELS": os.path.join(tmp, "empty")}
        base = ["--rig", "rtx4090", "--ollama-registry", server.base]
        for name, _, want in LOCAL:
            rc, out, err = run(tmp, ["check", "--model", "ollama:r-" + name] + base, env)
            url = "/v2/library/r-%s/manifests/latest" % name
            check(rc == 1, "registry %s: exit %d, expected 1 (%s)" % (name, rc, err.strip()))
            check(url in err and want in err, "registry %s: stderr: %s" % (name, err.strip()))
            check("\x1b" not in err + out, "registry %s: a terminal escape reached the output" % name)
        rc, out, err = run(tmp, ["check", "--model", "ollama:big"] + base, env)
        check(rc == 1 and "/v2/library/big/manifests/latest" in err, "big manifest: exit %d, %s" % (rc, err.strip()))
        rc, out, err = run(tmp, ["check", "--model", "ollama:good:1b"] + base, env)
        check(rc == 0 and "num_ctx 512" in out, "registry good: exit %d, %s" % (rc, err.strip()))
        rc, out, err = run(tmp, ["check", "--model", "ollama:absent"] + base, env)
        check(rc == 1 and "nor on the registry" in err, "registry 404: exit %d, %s" % (rc, err.strip()))
        # The registry is never sent a token, even with one configured for Hugging Face.
        with open(os.path.join(tmp, "server.log")) as f:
            check(all(not json.loads(line)["auth"] for line in f), "a request carried a token")
    finally:
        server.stop()
    rc, out, err = run(tmp, ["check", "--model", "ollama:x", "--rig", "rtx4090", "--ollama-registry", "file:///etc"], {})
    check(rc == 2 and "--ollama-registry" in err, "file:// registry: exit %d, %s" % (rc, err.strip()))


with tempfile.TemporaryDirectory(prefix="clefrun-hostile-stores.") as t1:
    local_cases(t1)
with tempfile.TemporaryDirectory(prefix="clefrun-hostile-registry.") as t2:
    os.makedirs(os.path.join(t2, "empty"))
    registry_cases(t2)
print("hostile stores: %d failures" % len(failures))
sys.exit(1 if failures else 0)
