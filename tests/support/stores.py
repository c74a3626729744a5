#!/usr/bin/env python3
"""Model stores on disk for clefrun's tests, written as their own programs
write them (docs/stores.md): Ollama's store, the Hugging Face hub cache,
LM Studio's models folder (stdlib only).

  stores.py ollama ROOT --gguf FILE [--name [HOST/][NS/]MODEL[:TAG]]
            [--params JSON] [--projector FILE] [--template TEXT]
            [--manifest-raw TEXT] [--digest-of-model DIGEST] [--size-of-model N]
            [--no-model-blob]
  stores.py hf HUB --repo OWNER/NAME --file PATH=GGUF... [--revision REV]
            [--commit HEX]
  stores.py lmstudio DIR --file PUBLISHER/REPO/NAME.gguf=GGUF...

ollama: ROOT/manifests/HOST/NS/MODEL/TAG (JSON: schemaVersion 2, the docker
manifest v2 media type, a config layer, the layers) and ROOT/blobs/sha256-HEX
(manifest/paths.go, manifest/manifest.go). --manifest-raw writes that text
as the manifest instead (hostile cases); --digest-of-model and
--size-of-model put another digest or size in the model layer.

hf: HUB/models--OWNER--NAME/blobs/SHA256 (the bytes), snapshots/COMMIT/PATH a
relative symbolic link to ../../blobs/SHA256 (deeper for PATH with '/'), and
refs/REV holding COMMIT (huggingface_hub file_download.py).

lmstudio: DIR/PUBLISHER/REPO/NAME.gguf, a plain copy.
"""
import argparse
import hashlib
import json
import os
import sys

MEDIA = {
    "model": "application/vnd.ollama.image.model",
    "params": "application/vnd.ollama.image.params",
    "projector": "application/vnd.ollama.image.projector",
    "template": "application/vnd.ollama.image.template",
    "license": "application/vnd.ollama.image.license",
}


def blob(root, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    os.makedirs(os.path.join(root, "blobs"), exist_ok=True)
    with open(os.path.join(root, "blobs", digest.replace(":", "-")), "wb") as f:
        f.write(data)
    return {"digest": digest, "size": len(data)}


def parse_name(name):
    """Ollama's ParseName (types/model/name.go) with its defaults."""
    tag = "latest"
    if ":" in name and name.rfind(":") > name.rfind("/"):
        name, tag = name.rsplit(":", 1)
    parts = name.split("/")
    model = parts[-1]
    ns = parts[-2] if len(parts) > 1 else "library"
    host = parts[-3] if len(parts) > 2 else "registry.ollama.ai"
    return host, ns, model, tag


def ollama(args):
    root = args.root
    with open(args.gguf, "rb") as f:
        gguf = f.read()
    layers = []
    model = {"mediaType": MEDIA["model"]}
    if args.no_model_blob:
        model.update({"digest": "sha256:" + hashlib.sha256(gguf).hexdigest(), "size": len(gguf)})
    else:
        model.update(blob(root, gguf))
    if args.digest_of_model is not None:
        model["digest"] = args.digest_of_model
    if args.size_of_model is not None:
        model["size"] = json.loads(args.size_of_model)
    layers.append(model)
    if args.projector:
        with open(args.projector, "rb") as f:
            layers.append(dict(mediaType=MEDIA["projector"], **blob(root, f.read())))
    if args.template is not None:
        layers.append(dict(mediaType=MEDIA["template"], **blob(root, args.template.encode())))
    if args.params is not None:
        layers.append(dict(mediaType=MEDIA["params"], **blob(root, args.params.encode())))
    config = dict(mediaType="application/vnd.docker.container.image.v1+json",
                  **blob(root, json.dumps({"model_format": "gguf", "model_type": "tiny"}).encode()))
    manifest = {"schemaVersion": 2,
                "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": config, "layers": layers}
    host, ns, name, tag = parse_name(args.name)
    d = os.path.join(root, "manifests", host, ns, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, tag), "wb") as f:
        if args.manifest_raw is not None:
            f.write(args.manifest_raw.encode("utf-8", "surrogateescape"))
        else:
            f.write(json.dumps(manifest).encode())
    return 0


def hf(args):
    owner, name = args.repo.split("/")
    repo = os.path.join(args.hub, "models--%s--%s" % (owner, name))
    commit = args.commit or hashlib.sha1(args.repo.encode()).hexdigest()
    for spec in args.file:
        path, src = spec.split("=", 1)
        with open(src, "rb") as f:
            data = f.read()
        sha = hashlib.sha256(data).hexdigest()
        os.makedirs(os.path.join(repo, "blobs"), exist_ok=True)
        with open(os.path.join(repo, "blobs", sha), "wb") as f:
            f.write(data)
        link = os.path.join(repo, "snapshots", commit, path)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        depth = path.count("/")
        target = os.path.join(*([".."] * (2 + depth)), "blobs", sha)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", args.revision), "w") as f:
        f.write(commit)
    return 0


def lmstudio(args):
    for spec in args.file:
        path, src = spec.split("=", 1)
        dst = os.path.join(args.dir, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as f, open(dst, "wb") as g:
            g.write(f.read())
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="store", required=True)
    o = sub.add_parser("ollama")
    o.add_argument("root")
    o.add_argument("--gguf", required=True)
    o.add_argument("--name", default="tiny")
    o.add_argument("--params")
    o.add_argument("--projector")
    o.add_argument("--template")
    o.add_argument("--manifest-raw")
    o.add_argument("--digest-of-model")
    o.add_argument("--size-of-model")
    o.add_argument("--no-model-blob", action="store_true")
    h = sub.add_parser("hf")
    h.add_argument("hub")
    h.add_argument("--repo", required=True)
    h.add_argument("--file", action="append", required=True)
    h.add_argument("--revision", default="main")
    h.add_argument("--commit")
    m = sub.add_parser("lmstudio")
    m.add_argument("dir")
    m.add_argument("--file", action="append", required=True)
    args = ap.parse_args()
    return {"ollama": ollama, "hf": hf, "lmstudio": lmstudio}[args.store](args)


if __name__ == "__main__":
    sys.exit(main())
