#!/usr/bin/env python3
"""The JSON Schemas of docs/schema against what clefrun really writes.

    test_schema.py CLEFRUN SOURCE_DIR

1. Every docs/schema/*.schema.json is a valid draft 2020-12 schema, and every
   schema id the sources write ("clefrun.check/1", ...) has its file
   (NAME.schema.json for "clefrun.NAME/1").
2. Real outputs validate: clefrun check, fit, models, rigs, quants, inspect
   (local GGUF files, and a Hugging Face repository and file from a loopback
   server), detect, rig list and rig show, with the options that change
   their shape (--explain, --best-quant, --all, no-fit rows, custom:, saved
   and detected rigs, GGUF models, offload, --catalog). Each document is
   checked against the schema its own "schema" field names. Then every
   command on every fixture: inspect and check of each tests/gguf/fixtures
   file, check of every catalog model, fit and rig show of every rig, the
   list commands, check and fit on each loadable fixture catalog, detect and
   --rig local on each detect root, and the JSON stdout every CLI golden case
   records; every CSV output follows one convention (snake_case headers,
   units in the name, the JSON field names, empty for missing).
3. The data files validate: data/*.json, the test catalogs that load, and
   saved-rigs files written by `rig add` and `detect --save`.
4. Schema and loader agree: a fixture catalog (tests/cli/fixtures,
   tests/fixtures/catalog) passes the schemas exactly when
   `clefrun --catalog DIR models` loads it.
5. The schemas are not vacuous: each real document, given an unknown field,
   a missing "schema" or a wrong tier, is rejected.

Needs the jsonschema module (Debian: python3-jsonschema, 4.10 or later);
without it the test FAILS, it does not skip.
"""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("FAIL: the Python module jsonschema is missing: install it (Debian: apt-get install "
          "python3-jsonschema; scripts/setup --with-tests does). This test does not skip.")
    sys.exit(1)

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
CLEFRUN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SCHEMA_DIR = os.path.join(SRC, "docs", "schema")
check = T.check

# ---- the schemas ----------------------------------------------------------------
V = jsonschema.Draft202012Validator
schemas = {}
for path in sorted(glob.glob(os.path.join(SCHEMA_DIR, "*.schema.json"))):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        schemas[name] = json.load(f)
    try:
        V.check_schema(schemas[name])
        check(f"{name} is a draft 2020-12 schema", schemas[name].get("$schema") ==
              "https://json-schema.org/draft/2020-12/schema", schemas[name].get("$schema"))
    except jsonschema.SchemaError as e:
        check(f"{name} is a draft 2020-12 schema", False, e)
if not schemas:
    check("docs/schema holds schemas", False, SCHEMA_DIR)
    sys.exit(1)

# Schemas refer to each other by file name ("common.schema.json#/$defs/rig"):
# a registry (jsonschema >= 4.18) or a RefResolver store (older) maps the
# names to the documents.
try:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    _registry = Registry().with_resources(
        [(n, Resource.from_contents(s, default_specification=DRAFT202012)) for n, s in schemas.items()])

    def validator(name):
        return V(schemas[name], registry=_registry)
except ImportError:
    def validator(name):
        return V(schemas[name], resolver=jsonschema.RefResolver(base_uri=name, referrer=schemas[name],
                                                                 store=dict(schemas)))

validators = {n: validator(n) for n in schemas}
used = set()


def schema_file(doc):
    """NAME.schema.json for a document whose "schema" is "clefrun.NAME/1"."""
    sid = doc.get("schema") if isinstance(doc, dict) else None
    m = re.fullmatch(r"clefrun\.([a-z-]+)/[0-9]+", sid or "")
    return m.group(1) + ".schema.json" if m else None


def errors(doc, name):
    return sorted(validators[name].iter_errors(doc), key=lambda e: list(e.absolute_path))


def first_error(errs):
    e = errs[0]
    return f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message[:300]}"


samples = {}  # schema file -> one real document, for the mutation checks


def validate(label, doc, want):
    name = schema_file(doc)
    if name != want:
        check(f"{label}: says schema {doc.get('schema') if isinstance(doc, dict) else None!r}", False,
              f"expected the schema of {want}")
        return
    if name not in validators:
        check(f"{label}: {name} exists", False)
        return
    used.add(name)
    errs = errors(doc, name)
    check(f"{label} validates against {name}", not errs, first_error(errs) if errs else "")
    samples.setdefault(name, doc)


# Every schema id written by the sources has its schema file.
ids = set()
for path in glob.glob(os.path.join(SRC, "src", "*", "*.[ch]")) + glob.glob(os.path.join(SRC, "include", "clefrun", "*.h")):
    with open(path, encoding="utf-8", errors="replace") as f:
        ids.update(re.findall(r'"(clefrun\.[a-z-]+/[0-9]+)"', f.read()))
for sid in sorted(ids):
    name = re.fullmatch(r"clefrun\.([a-z-]+)/[0-9]+", sid).group(1) + ".schema.json"
    check(f"{sid} has docs/schema/{name}", name in schemas)

# ---- running clefrun ---------------------------------------------------------------
tmp = tempfile.mkdtemp(prefix="clefrun-schema.")
ENV = {k: v for k, v in os.environ.items()
       if not k.startswith("CLEFRUN_") and not k.startswith("HF_") and k not in ("http_proxy", "https_proxy")}
ENV.update(NO_COLOR="1", LC_ALL="C", HOME=os.path.join(tmp, "home"),
           XDG_CONFIG_HOME=os.path.join(tmp, "config"), XDG_CACHE_HOME=os.path.join(tmp, "cache"))
os.makedirs(ENV["HOME"])


def run(args, env=None, codes=(0,)):
    e = dict(ENV)
    e.update(env or {})
    p = subprocess.run([CLEFRUN] + args, capture_output=True, text=True, env=e, timeout=120)
    if p.returncode not in codes:
        check(f"clefrun {' '.join(args)}: exit {p.returncode}", False, p.stderr)
        return None
    return p.stdout


def run_json(label, args, want, env=None, codes=(0,)):
    out = run(args + ["--format", "json"], env, codes)
    if out is None:
        return None
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(f"{label}: stdout is one JSON document", False, e)
        return None
    validate(label, doc, want)
    return doc


FIX = os.path.join(SRC, "tests", "detect", "fixtures")
GGUF_WRITE = os.path.join(SRC, "scripts", "gguf-write")
gguf = {}
for preset, extra in (("tiny-llama", []), ("qwen3.5-9b", ["--header-only"]),
                      ("qwen3-30b-a3b", ["--header-only"]), ("gemma-3-4b", ["--header-only"])):
    path = os.path.join(tmp, preset + ".gguf")
    p = subprocess.run([sys.executable, GGUF_WRITE, "--preset", preset, "-o", path] + extra,
                       capture_output=True, text=True)
    check(f"gguf-write --preset {preset}", p.returncode == 0, p.stderr)
    gguf[preset] = path

C = "check.schema.json"
run_json("check, reference rigs", ["check", "--model", "clef-flash"], C)
run_json("check, every quant on one rig", ["check", "--model", "clef-flash", "--rig", "rtx4090"], C)
run_json("check --explain", ["check", "--model", "clef", "--rig", "2x3090", "--quant", "Q4_K_M", "--explain"], C)
run_json("check --best-quant", ["check", "--model", "llama-3.1-70b", "--rig", "rtx4090", "--rig", "2x3090",
                                "--best-quant"], C, codes=(0, 3))
run_json("check, no-fit rows (null speeds)", ["check", "--model", "deepseek-r1", "--rig", "rtx3060-12",
                                              "--quant", "Q4_K_M"], C, codes=(3,))
run_json("check --split tensor --kv-type q8_0 --workload decide",
         ["check", "--model", "clef", "--rig", "4x4090", "--split", "tensor", "--kv-type", "q8_0",
          "--workload", "decide", "--parallel", "4"], C)
run_json("check, custom rig with a RAM tier, --gpu-layers",
         ["check", "--model", "llama-3.1-70b", "--quant", "Q4_K_M", "--gpu-layers", "40",
          "--rig", "custom:mem_gb=24,bw_gbs=1008,tflops=165,ram_gb=128,ram_bw_gbs=89.6"], C, codes=(0, 3))
run_json("check --cpu-moe", ["check", "--model", "qwen3-30b-a3b", "--quant", "Q4_K_M", "--cpu-moe",
                             "--rig", "custom:mem_gb=8,bw_gbs=448,ram_gb=64,ram_bw_gbs=80"], C, codes=(0, 3))
run_json("check, a GGUF file", ["check", "--model", gguf["tiny-llama"], "--rig", "rtx4090"], C)
run_json("check, a GGUF header (hybrid)", ["check", "--model", gguf["qwen3.5-9b"], "--header-only",
                                           "--rig", "m4-max-128"], C)
run_json("check --catalog (a fixture catalog)", ["--catalog", os.path.join(SRC, "tests", "cli", "fixtures", "mini"),
                                                  "check", "--model", "tiny-llama"], C, codes=(0, 3))
run_json("check --rig local", ["check", "--model", "clef-flash", "--rig", "local", "--quant", "Q4_K_M"], C,
         env={"CLEFRUN_DETECT_ROOT": os.path.join(FIX, "nvidia2")})

F = "fit.schema.json"
run_json("fit", ["fit", "--rig", "rtx4090"], F)
PRICES = os.path.join(SRC, "tests", "fixtures", "prices", "sample.json")
run_json("buy, fixture prices", ["buy", "--model", "clef-flash", "--prices", PRICES], "buy.schema.json")
run_json("buy --all, rows that do not reach", ["buy", "--model", "deepseek-v3", "--all", "--prices", PRICES],
         "buy.schema.json", codes=(0, 3))
run_json("buy, built-in prices", ["buy", "--model", "llama-3.1-8b", "--kind", "rent"], "buy.schema.json",
         codes=(0, 3))
run_json("fit --all", ["fit", "--rig", "rtx4090", "--all"], F)
run_json("fit --all --ctx 200000 (context rows)", ["fit", "--rig", "m3-ultra-512", "--all", "--ctx", "200000"], F)
run_json("fit --family --workload decide", ["fit", "--rig", "2x3090", "--family", "qwen", "--workload", "decide",
                                            "--require", "fast", "--all"], F, codes=(0, 3))
run_json("fit, a custom rig that runs nothing", ["fit", "--rig", "custom:mem_gb=1,bw_gbs=10", "--all"], F,
         codes=(3,))
run_json("fit --rig local", ["fit", "--rig", "local", "--limit", "3"], F,
         env={"CLEFRUN_DETECT_ROOT": os.path.join(FIX, "cpu")})

run_json("models", ["models"], "models-list.schema.json")
run_json("rigs", ["rigs"], "rigs-list.schema.json")
run_json("quants", ["quants"], "quants-list.schema.json")
MINI = os.path.join(SRC, "tests", "cli", "fixtures", "mini")
run_json("models --catalog mini", ["models", "--catalog", MINI], "models-list.schema.json")
run_json("rigs --catalog mini", ["rigs", "--catalog", MINI], "rigs-list.schema.json")

# The models on this machine: fixture stores written by tests/cli/fixtures/make-stores.
STORES = os.path.join(tmp, "stores")
p = subprocess.run(["sh", "fixtures/make-stores", STORES], cwd=os.path.join(SRC, "tests", "cli"),
                   capture_output=True, text=True)
check("make-stores", p.returncode == 0, p.stderr)
SENV = {"HOME": os.path.join(STORES, "home"), "OLLAMA_MODELS": os.path.join(STORES, "ollama"),
        "HF_HUB_CACHE": os.path.join(STORES, "hub")}
ml = run_json("models --local", ["models", "--local", "--path", os.path.join(STORES, "extra")],
              "models-local.schema.json", env=SENV)
check("models --local lists the three stores and --path",
      ml is not None and {m["store"] for m in ml["models"]} == {"ollama", "hf-cache", "lmstudio", "path"})
run_json("fit --local", ["fit", "--rig", "rtx4090", "--local", "--path", os.path.join(STORES, "extra")],
         "fit-local.schema.json", env=SENV)
run_json("check --model ollama:", ["check", "--model", "ollama:tiny:1b", "--rig", "rtx4090"], C, env=SENV)

I = "inspect.schema.json"
run_json("inspect, a small GGUF file", ["inspect", gguf["tiny-llama"]], I)
run_json("inspect, hybrid header", ["inspect", gguf["qwen3.5-9b"], "--header-only", "--ctx", "65536"], I)
run_json("inspect, MoE header", ["inspect", gguf["qwen3-30b-a3b"], "--header-only", "--kv-type", "q8_0"], I)
run_json("inspect, sliding-window header", ["inspect", gguf["gemma-3-4b"], "--header-only"], I)

D = "detect.schema.json"
for root in ("nvidia2", "amd", "apple", "cpu"):
    run_json(f"detect --root {root}", ["detect", "--root", os.path.join(FIX, root)], D)
run_json("detect --save", ["detect", "--root", os.path.join(FIX, "nvidia2"), "--save", "home-box"], D)

RL, RS = "user-rigs-list.schema.json", "rig.schema.json"
rigs_file = os.path.join(ENV["XDG_CONFIG_HOME"], "clefrun", "rigs.json")
run(["rig", "add", "box", "--mem-gb", "24", "--bw-gbs", "936", "--devices", "2", "--tflops", "71",
     "--ram-gb", "64", "--ram-bw-gbs", "80", "--notes", "two 3090s"])
run(["rig", "add", "mac", "--mem-gb", "128", "--bw-gbs", "546", "--backend", "metal", "--name", "Mac Studio"])
run_json("rig list", ["rig", "list"], RL)
run_json("rig show (saved)", ["rig", "show", "box"], RS)
run_json("rig show (catalog)", ["rig", "show", "dgx-spark"], RS)
run_json("rig show (custom:)", ["rig", "show", "custom:mem_gb=24,bw_gbs=1008,devices=2,kind=discrete"], RS)
run_json("rig show local", ["rig", "show", "local"], RS, env={"CLEFRUN_DETECT_ROOT": os.path.join(FIX, "amd")})
empty = dict(XDG_CONFIG_HOME=os.path.join(tmp, "empty-config"))
run_json("rig list, no file yet", ["rig", "list"], RL, env=empty)

# ---- every command on every fixture ---------------------------------------------------------
# Each GGUF fixture through inspect and check (header-only where the file is cut after its
# header), every catalog model through check, every rig through fit, every loadable fixture
# catalog through each list command, every detect root through detect.
GGUF_FIX = os.path.join(SRC, "tests", "gguf", "fixtures")
gguf_fixtures = sorted(p for p in glob.glob(os.path.join(GGUF_FIX, "*.gguf"))
                       if not re.search(r"-0000[2-9]-of-", p))
check("tests/gguf/fixtures holds GGUF files", len(gguf_fixtures) >= 5, GGUF_FIX)
# Fixtures made to be refused: no JSON to validate; that they are refused is checked here, their message
# by the golden case named.
REFUSED = {"split-no-past-count.hdr.gguf": "inspect-split-no-past-count"}
for path in gguf_fixtures:
    base = os.path.basename(path)
    hdr = ["--header-only"] if ".hdr." in base else []
    if base in REFUSED:
        p = subprocess.run([CLEFRUN, "inspect", path] + hdr + ["--format", "json"], capture_output=True, text=True)
        check(f"inspect {base} is refused (exit 1; message: golden case {REFUSED[base]})",
              p.returncode == 1 and not p.stdout, (p.returncode, p.stdout[:200]))
        continue
    run_json(f"inspect {base}", ["inspect", path] + hdr, I)
    run_json(f"inspect {base} --ctx 1024 --kv-type q8_0", ["inspect", path, "--ctx", "1024", "--kv-type", "q8_0"] + hdr, I)
    run_json(f"check {base}", ["check", "--model", path, "--rig", "rtx4090", "--rig", "m4-max-128"] + hdr, C,
             codes=(0, 3))


def ids_of(args, key):
    out = run(args + ["--format", "json"])
    try:
        return [x["id"] for x in json.loads(out)[key]] if out else []
    except (ValueError, KeyError, TypeError):
        return []


model_ids = ids_of(["models"], "models")
rig_ids = ids_of(["rigs"], "rigs")
check("the catalog lists models and rigs", len(model_ids) >= 10 and len(rig_ids) >= 10, (model_ids, rig_ids))
for mid in model_ids:
    run_json(f"check --model {mid}", ["check", "--model", mid], C, codes=(0, 3))
for rid in rig_ids:
    run_json(f"fit --rig {rid} --all", ["fit", "--rig", rid, "--all"], F, codes=(0, 3))
    run_json(f"rig show {rid}", ["rig", "show", rid], RS)
for d in sorted(glob.glob(os.path.join(SRC, "tests", "cli", "fixtures", "*")) +
                glob.glob(os.path.join(SRC, "tests", "fixtures", "catalog", "*"))):
    rel = os.path.relpath(d, SRC)
    e = dict(ENV)
    if not os.path.isdir(d) or subprocess.run([CLEFRUN, "--catalog", d, "models"], capture_output=True,
                                              env=e).returncode != 0:
        continue
    for cmd, name in (("models", "models-list"), ("rigs", "rigs-list"), ("quants", "quants-list")):
        run_json(f"{cmd} --catalog {rel}", ["--catalog", d, cmd], name + ".schema.json")
    for mid in ids_of(["--catalog", d, "models"], "models"):
        run_json(f"check --catalog {rel} --model {mid}", ["--catalog", d, "check", "--model", mid], C, codes=(0, 3))
    for rid in ids_of(["--catalog", d, "rigs"], "rigs"):
        run_json(f"fit --catalog {rel} --rig {rid}", ["--catalog", d, "fit", "--rig", rid, "--all"], F,
                 codes=(0, 3))
for root in sorted(glob.glob(os.path.join(FIX, "*"))):
    if os.path.isdir(root):
        run_json(f"detect --root {os.path.basename(root)} (all roots)", ["detect", "--root", root], D)
        run_json(f"fit --rig local ({os.path.basename(root)})", ["fit", "--rig", "local"], F, codes=(0, 3),
                 env={"CLEFRUN_DETECT_ROOT": root})

# Every JSON document the CLI golden cases record (tests/cli/cases/*/stdout for --format json):
# the golden tests hold those equal to what the binary writes.
n_golden = 0
for case in sorted(glob.glob(os.path.join(SRC, "tests", "cli", "cases", "*"))):
    try:
        # args may hold bytes that are not UTF-8 (hostile-input cases); stdout must be UTF-8.
        with open(os.path.join(case, "args"), encoding="utf-8", errors="surrogateescape") as f:
            args = f.read().split("\n")
        with open(os.path.join(case, "stdout"), encoding="utf-8") as f:
            out = f.read()
    except OSError:
        continue
    if "json" not in args or not out.strip():
        continue
    n_golden += 1
    name = os.path.basename(case)
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(f"golden case {name}: stdout is one JSON document", False, e)
        continue
    want = schema_file(doc)
    validate(f"golden case {name}", doc, want if want in schemas else "(a schema of docs/schema)")
check("the golden cases record JSON documents", n_golden >= 5, n_golden)

# ---- CSV: one convention --------------------------------------------------------------------
# Every --format csv output: snake_case headers (units in the name: _bytes, _gbs, _s, ...),
# never a display unit (GiB, _ms) nor "-" for a missing value (an empty field), and a column
# that names a JSON field of the same command has that field's name.
import csv
import io

BAD_UNIT = re.compile(r"(_gib|_gb|_mib|_ms|_pct)$")
for label, args in (("models", ["models"]), ("rigs", ["rigs"]), ("quants", ["quants"]),
                    ("rig list", ["rig", "list"]), ("rig show", ["rig", "show", "box"]),
                    ("rig show custom:", ["rig", "show", "custom:mem_gb=24,bw_gbs=900"]),
                    ("check", ["check", "--model", "clef-flash", "--rig", "rtx4090", "--rig",
                               "custom:mem_gb=24,bw_gbs=900"]),
                    ("check no-fit", ["check", "--model", "deepseek-r1", "--rig", "rtx3060-12"]),
                    ("fit", ["fit", "--rig", "custom:mem_gb=24,bw_gbs=900", "--all"]),
                    ("inspect", ["inspect", gguf["qwen3.5-9b"], "--header-only"]),
                    ("detect", ["detect", "--root", os.path.join(FIX, "nvidia2")])):
    out = run(args + ["--format", "csv"], codes=(0, 3))
    if out is None:
        continue
    rows = list(csv.reader(io.StringIO(out)))
    hdr = rows[0] if rows else []
    check(f"{label} --format csv: snake_case headers with units in the name",
          bool(hdr) and all(re.fullmatch(r"[a-z][a-z0-9_]*", h) and not BAD_UNIT.search(h) for h in hdr), hdr)
    dash = [r for r in rows[1:] if "-" in r]
    check(f"{label} --format csv: no '-' for a missing value", not dash, dash[:2])
    if label == "inspect":
        check("inspect --format csv: the fields are the JSON paths",
              all(re.fullmatch(r"[a-z_]+(\.[A-Za-z0-9_.\-]+)?", r[0]) for r in rows[1:]) and
              any(r[0] == "memory.total_bytes" for r in rows), [r[0] for r in rows[1:6]])
json_keys = {}
for label, args, key in (("check", ["check", "--model", "clef-flash", "--rig", "rtx4090"], "results"),
                         ("fit", ["fit", "--rig", "rtx4090"], "results"),
                         ("models", ["models"], "models"), ("rigs", ["rigs"], "rigs"),
                         ("quants", ["quants"], "quants")):
    out_j, out_c = run(args + ["--format", "json"]), run(args + ["--format", "csv"])
    if out_j is None or out_c is None:
        continue
    item = json.loads(out_j)[key][0]
    fields = set(item) | {k for v in item.values() if isinstance(v, dict) for k in v} | \
        {k for v in item.values() if isinstance(v, list) for d in v if isinstance(d, dict) for k in d}
    hdr = next(csv.reader(io.StringIO(out_c)))
    # a CSV column with a unit suffix must be spelled as the JSON field it comes from
    stray = [h for h in hdr if re.search(r"_(bytes|gbs|s|tflops)$", h) and h not in fields]
    check(f"{label}: CSV unit columns are JSON field names", not stray, stray)

# ---- a Hugging Face repository and file, from the loopback server -------------------------
served = os.path.join(tmp, "served")
os.makedirs(served)
shutil.copy(gguf["tiny-llama"], os.path.join(served, "tiny-Q4_K_M.gguf"))
shutil.copy(gguf["tiny-llama"], os.path.join(served, "tiny-F16.gguf"))
srv = T.LoopbackServer(served, os.path.join(tmp, "server.log"))
try:
    hf = {"HF_ENDPOINT": srv.base}
    run_json("inspect hf:OWNER/REPO (file list)", ["inspect", "hf:test/tiny"], I, env=hf)
    run_json("inspect hf:OWNER/REPO:QUANT (remote header)", ["inspect", "hf:test/tiny:Q4_K_M"], I, env=hf)
    run_json("check hf:OWNER/REPO (a row per file)", ["check", "--model", "hf:test/tiny", "--rig", "rtx4090"], C,
             env=hf)
finally:
    srv.stop()

# ---- data files ------------------------------------------------------------------------
KIND = {"models.json": "models.schema.json", "quants.json": "quants.schema.json", "rigs.json": "rigs.schema.json"}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


for base, name in KIND.items():
    doc = load(os.path.join(SRC, "data", base))
    check(f"data/{base} parses", doc is not None)
    if doc is not None:
        validate(f"data/{base}", doc, name)
saved = load(rigs_file)
check("rig add and detect --save wrote the saved-rigs file", saved is not None and len(saved.get("rigs", [])) == 3,
      rigs_file)
if saved is not None:
    validate("saved-rigs file", saved, "user-rigs.schema.json")

# The schemas and the loader agree on every fixture catalog.
for d in sorted(glob.glob(os.path.join(SRC, "tests", "cli", "fixtures", "*")) +
                glob.glob(os.path.join(SRC, "tests", "fixtures", "catalog", "*"))):
    if not os.path.isdir(d) or not all(os.path.exists(os.path.join(d, b)) for b in KIND) and \
            not os.path.exists(os.path.join(d, "models.json")):
        continue
    verdict, why = True, ""
    for base, name in KIND.items():
        doc = load(os.path.join(d, base))
        if doc is None:
            verdict, why = False, f"{base} missing or not JSON"
            break
        errs = errors(doc, name)
        if errs:
            verdict, why = False, f"{base}: {first_error(errs)}"
            break
    e = dict(ENV)
    p = subprocess.run([CLEFRUN, "--catalog", d, "models", "--format", "json"], capture_output=True, text=True,
                       env=e)
    rel = os.path.relpath(d, SRC)
    check(f"{rel}: schemas {'accept' if verdict else 'reject'} it, the loader "
          f"{'loads' if p.returncode == 0 else 'refuses'} it", verdict == (p.returncode == 0),
          why or p.stderr.strip())

# ---- not vacuous ---------------------------------------------------------------------------
for name, doc in sorted(samples.items()):
    bad = copy.deepcopy(doc)
    bad["unexpected_field"] = 1
    check(f"{name} rejects an unknown field", bool(errors(bad, name)))
    bad = copy.deepcopy(doc)
    del bad["schema"]
    check(f"{name} rejects a document without 'schema'", bool(errors(bad, name)))
if C in samples:
    bad = copy.deepcopy(samples[C])
    bad["results"][0]["tier"] = "great"
    check("check.schema.json rejects tier 'great'", bool(errors(bad, C)))
    bad = copy.deepcopy(samples[C])
    bad["results"][0]["memory"]["total_bytes"] = -1
    check("check.schema.json rejects negative bytes", bool(errors(bad, C)))
    bad = copy.deepcopy(samples[C])
    bad["model_info"]["task"] = "generation"
    errs = errors(bad, C)
    check("check.schema.json rejects model_info.task 'generation' (absent for a generator)", bool(errs) and
          first_error(errs).startswith("model_info/task:"), errs and first_error(errs))
if "models.schema.json" in samples:
    bad = copy.deepcopy(samples["models.schema.json"])
    hybrid = next((m for m in bad["models"] if "L" in m.get("layer_pattern", "")), None)
    if hybrid:
        del hybrid["linear_attention"]
        check("models.schema.json rejects L layers without linear_attention", bool(errors(bad, "models.schema.json")))
    bad = copy.deepcopy(samples["models.schema.json"])
    bad["models"][0]["id"] = "Upper Case"
    check("models.schema.json rejects a malformed id", bool(errors(bad, "models.schema.json")))
    # "task": an embedding or reranking model is accepted, an unknown task is
    # refused at its JSON path.
    good = copy.deepcopy(samples["models.schema.json"])
    emb = [i for i, m in enumerate(good["models"]) if m.get("task") in ("embedding", "rerank")]
    check("models.schema.json accepts the catalog's embedding and reranking models", bool(emb) and
          not errors(good, "models.schema.json"), emb)
    good["models"][0]["task"] = "generation"
    check("models.schema.json accepts task 'generation'", not errors(good, "models.schema.json"))
    bad = copy.deepcopy(samples["models.schema.json"])
    bad["models"][0]["task"] = "chat"
    errs = errors(bad, "models.schema.json")
    check("models.schema.json rejects task 'chat' at models/0/task", bool(errs) and
          first_error(errs).startswith("models/0/task:"), errs and first_error(errs))
if "user-rigs.schema.json" in samples:
    bad = copy.deepcopy(samples["user-rigs.schema.json"])
    bad["rigs"][0]["reference"] = True
    check("user-rigs.schema.json rejects a saved reference rig", bool(errors(bad, "user-rigs.schema.json")))

for name in sorted(schemas):
    if name != "common.schema.json":
        check(f"{name} was checked against a real document", name in used)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(T.summary())
