#!/usr/bin/env python3
"""Hostile command lines: every option of every command with a missing, empty,
negative, non-numeric, enormous and overlong value (and every flag given a
value), each compared with its recorded exit code and standard error.

  hostile_cli.py CLEFRUN [--update] [--only GROUP] [--coverage [--groups "G1;G2;..."]]

The table of options is not written by hand: it is read from `clefrun --help`
(the commands) and `clefrun COMMAND --help` (their options), so a new option
or command is exercised, and fails, until its rows are recorded. The
expected results live in tests/hostile/cli.expected.json, one entry per row:

  "check --ctx negative": {"args": [...], "exit": 2, "stderr": "...", "stdout": ""}

--update rewrites the entries of the commands run (as tests/cli/update-golden
does for the golden tests): review the diff, it is the specification.
--only runs one group: a command ("check", "rig add"), "(global)" for the
options before a command, or "(extra)" for the rows beyond the option table.
--coverage checks only that every command has a base command line here and,
with --groups, that those are the groups ctest registers.

Whatever is recorded, every row must also hold these rules (docs/cli.md):
no signal (crash, abort, sanitizer), an exit code of 0, 1, 2 or 3; a
missing or empty value is a usage error (exit 2); a usage error prints one
diagnostic on stderr and nothing on stdout. Each run happens in its own
empty temporary directory (the working directory, HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME), no
CLEFRUN_* or HF_* variables but CLEFRUN_DETECT_ROOT (a fixture machine for
--rig local), NO_COLOR=1 and LC_ALL=C. CLEFRUN_TEST_WRAPPER
(as in tests/cli/run-case) prefixes each run: "valgrind" runs memcheck and a
report fails the row.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(HERE, "cli.expected.json")
LONG = "x" * 5000

# Values tried for an option that takes one. "missing" puts the option last,
# so that it has no value; "empty-eq" is --opt=, "empty" an empty argument.
VALUES = [
    ("missing", None),
    ("empty-eq", ""),
    ("empty", ""),
    ("negative", "-1"),
    ("zero", "0"),
    ("non-numeric", "abc"),
    ("fraction", "1.5"),
    ("huge-integer", "99999999999999999999999"),
    ("huge-float", "1e999"),
    ("nan", "nan"),
    ("long", LONG),
]

# The command line each command's options are added to: valid on its own,
# so that the option under test decides. {tmp} is the run's temporary dir
# (also its working directory: an --output of "abc" lands there), {root}
# the repository.
BASE = {
    # The global options, before a command: `clefrun --catalog DIR models`.
    "(global)": [],
    "check": ["check", "--model", "clef-flash", "--rig", "rtx4090", "--quant", "Q4_K_M"],
    # check's vLLM engine has an option table of its own (cmd_vllm.c).
    "check --engine vllm": ["check", "--engine", "vllm", "--model", "llama-3.1-8b", "--rig", "rtx4090",
                            "--max-model-len", "8192"],
    "fit": ["fit", "--rig", "rtx4090"],
    "plan": ["plan", "--model", "llama-3.1-8b", "--rig", "rtx4090", "--parallel", "1,2"],
    "buy": ["buy", "--model", "clef-flash", "--prices", "{root}/tests/fixtures/prices/sample.json"],
    "inspect": ["inspect", "{root}/tests/gguf/fixtures/tiny-llama.gguf"],
    "models": ["models"],
    "rigs": ["rigs"],
    "quants": ["quants"],
    "detect": ["detect", "--root", "{root}/tests/detect/fixtures/cpu"],
    "rig add": ["rig", "add", "hostile-box", "--mem-gb", "24", "--bw-gbs", "1000"],
    "rig list": ["rig", "list"],
    "rig show": ["rig", "show", "rtx4090"],
    "rig rm": ["rig", "rm", "hostile-box"],
    "report": ["report", "--model", "clef-flash", "--rig", "rtx4090", "-o", "{tmp}/out.html"],
    "chart": ["chart", "--model", "clef-flash", "--rig", "rtx4090", "-o", "{tmp}/out.svg"],
}

OPT_RE = re.compile(r"^  (--[a-z0-9][a-z0-9-]*)(?: ([A-Z][A-Za-z0-9_|.=-]*))?\s{2,}\S")


def help_text(binary, args):
    r = subprocess.run([binary, *args, "--help"], cwd=ROOT, capture_output=True, text=True,
                       env=clean_env(tempfile.gettempdir()), timeout=60)
    if r.returncode != 0:
        raise SystemExit("%s %s --help: exit %d\n%s" % (binary, " ".join(args), r.returncode, r.stderr))
    return r.stdout


def commands(binary):
    """Commands from `clefrun --help`; `rig` expands to its subcommands."""
    out, section = [], None
    for line in help_text(binary, []).splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
            continue
        m = re.match(r"^  ([a-z][a-z0-9-]*)\s{2,}\S", line)
        if section == "commands" and m:
            out.append(m.group(1))
    expanded = ["(global)"]
    for c in out:
        if c == "rig":
            for line in help_text(binary, ["rig"]).splitlines():
                m = re.match(r"^  rig ([a-z]+)\b", line)
                if m:
                    expanded.append("rig " + m.group(1))
        else:
            expanded.append(c)
        if c == "check":
            expanded.append("check --engine vllm")
    return expanded


def options(binary, command):
    """(option, metavar or None) from `clefrun COMMAND --help`, -h/--help left out."""
    opts = []
    args = [] if command == "(global)" else command.split()
    for line in help_text(binary, args).splitlines():
        m = OPT_RE.match(line)
        if m and m.group(1) != "--help":
            opts.append((m.group(1), m.group(2)))
    return opts


OLLAMA_VARS = ("OLLAMA_CONTEXT_LENGTH", "OLLAMA_NUM_PARALLEL", "OLLAMA_FLASH_ATTENTION",
               "OLLAMA_KV_CACHE_TYPE", "OLLAMA_GPU_OVERHEAD")


def clean_env(tmp, extra=None):
    env = clefrun_test.clean_env(
        tmp, HF_ENDPOINT="http://127.0.0.1:9",  # nothing listens: never the real hub
        # --rig local reads this fixture machine, not the one running the tests
        CLEFRUN_DETECT_ROOT=os.path.join(ROOT, "tests", "detect", "fixtures", "cpu"))
    # --engine ollama reads these: none from the machine running the tests.
    for k in OLLAMA_VARS:
        env.pop(k, None)
    env.update(extra or {})
    return env


# Short forms in BASE of the options --help lists by their long name.
SHORT = {"-o": "--output"}


def without(base, opt):
    """base without its own occurrences of opt (and their values), so that the
    row's value is the only one ("--model given twice" tests nothing)."""
    out, i = [], 0
    while i < len(base):
        if base[i] == opt or SHORT.get(base[i]) == opt:
            i += 2
            continue
        out.append(base[i])
        i += 1
    return out


def rows(binary, command):
    """Every (name, args) row of one command."""
    # Global options go before a command; "missing" leaves the command out.
    after = ["models"] if command == "(global)" else []
    out = []
    for opt, metavar in options(binary, command):
        base = without(BASE[command], opt)
        if metavar is None:
            out.append(("%s %s with-value" % (command, opt), base + [opt + "=1"] + after))
            continue
        for cls, value in VALUES:
            if cls == "missing":
                args = base + [opt]
            elif cls == "empty-eq":
                args = base + [opt + "="] + after
            else:
                args = base + [opt, value] + after
            out.append(("%s %s %s" % (command, opt, cls), args))
    return out


# Rows beyond the option table: hostile positional arguments, hostile files
# (a malformed file is a runtime error, exit 1), a broken saved-rigs file
# (reported, exit 1, and left exactly as it was). "files" are written into
# the run's directory first; "unchanged" must still hold them afterwards.
BROKEN_RIGS = {
    "empty": "",
    "torn": '{"schema":"clefrun.user-rigs/1","rigs":[{"id":"box","name":"Bo',
    "garbage": "\x00\xff\xfe GGUF",
    "not-json-object": "[]",
    "deep": "[" * 10000 + "]" * 10000,
    "invalid-utf8": '{"schema":"clefrun.user-rigs/1","rigs":[{"id":"box","name":"\xc0\xaf"}]}',
}


def no_reference_catalog():
    """data/*.json with one model and every rig's "reference" false."""
    files = {}
    for name in ("models", "quants", "rigs"):
        with open(os.path.join(ROOT, "data", name + ".json"), encoding="utf-8") as f:
            doc = json.load(f)
        if name == "models":
            doc["models"] = [dict(m) for m in doc["models"] if m["id"] == "llama-3.1-8b"]
            doc["models"][0].pop("backbone", None)
        if name == "rigs":
            for r in doc["rigs"]:
                r["reference"] = False
        files["cat/%s.json" % name] = json.dumps(doc).encode("utf-8")
    return files


def st_file(header, data_len):
    """A safetensors file's bytes: the 8-byte length, the header, zeros."""
    h = header.encode("latin-1")
    return len(h).to_bytes(8, "little") + h + bytes(data_len)


def extra_rows():
    out = []
    for what, value in (("empty", ""), ("dash", "-"), ("missing-file", "{tmp}/none.gguf"),
                        ("directory", "{root}/tests"), ("dev-null", "/dev/null"), ("long", LONG),
                        ("hf-empty", "hf:"), ("hf-long", "hf:" + LONG), ("url-bad", "http://")):
        out.append(("inspect SOURCE " + what, ["inspect", value]))
        out.append(("check --model SOURCE " + what, ["check", "--model", value, "--rig", "rtx4090"]))
    # Hostile safetensors checkpoints: a directory with a config.json and
    # shards written into the run's directory (a runtime error, exit 1).
    good_cfg = json.dumps({"model_type": "llama", "hidden_size": 32, "num_attention_heads": 4,
                           "num_hidden_layers": 2, "vocab_size": 128})
    for what, files in (
            ("config-torn", {"ck/config.json": '{"model_type": "llama", "hidd'}),
            ("config-unknown-arch", {"ck/config.json": '{"model_type": "rwkv7"}'}),
            ("config-deep", {"ck/config.json": "[" * 10000 + "]" * 10000}),
            ("no-shards", {"ck/config.json": good_cfg}),
            ("index-escape", {"ck/config.json": good_cfg,
                              "ck/model.safetensors.index.json": '{"weight_map": {"a": "../../etc/x.safetensors"}}'}),
            ("shard-huge-length", {"ck/config.json": good_cfg,
                                   "ck/model.safetensors": "\xff" * 8 + "{}"}),
            ("shard-escape-name", {"ck/config.json": good_cfg, "ck/model.safetensors": st_file(
                '{"\\u001b[31mred\\u0007":{"dtype":"BF17","shape":[1],"data_offsets":[0,1]}}', 1)}),
            ("shard-overlap", {"ck/config.json": good_cfg, "ck/model.safetensors": st_file(
                '{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},'
                '"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', 4)}),
            ("shard-cut", {"ck/config.json": good_cfg, "ck/model.safetensors": st_file(
                '{"a":{"dtype":"F16","shape":[1024],"data_offsets":[0,2048]}}', 16)}),
    ):
        out.append(("check --engine vllm --model " + what,
                    ["check", "--engine", "vllm", "--model", "{tmp}/ck", "--rig", "rtx4090"], {"files": files}))
    corpus = os.path.join(ROOT, "tests", "fuzz", "gguf", "corpus")
    for f in sorted(os.listdir(corpus)):
        if f.startswith("seed-"):
            out.append(("inspect GGUF " + f, ["inspect", "{root}/tests/fuzz/gguf/corpus/" + f]))
    for what, value in (("empty", ""), ("dash", "-1"), ("upper", "Box"), ("local", "local"),
                        ("catalog-id", "rtx4090"), ("long", LONG), ("48-chars", "a" * 48)):
        out.append(("rig add NAME " + what, ["rig", "add", value, "--mem-gb", "24", "--bw-gbs", "1000"]))
        out.append(("rig show NAME " + what, ["rig", "show", value]))
        out.append(("rig rm NAME " + what, ["rig", "rm", value]))
    # A catalog that marks no rig as a reference rig: the commands whose
    # default is "the reference rigs" must say so, not estimate nothing.
    cat = no_reference_catalog()
    for cmd in (["check", "--model", "llama-3.1-8b"],
                ["report", "--model", "llama-3.1-8b", "-o", "{tmp}/r.html"],
                ["chart", "--model", "llama-3.1-8b", "-o", "{tmp}/c.svg"]):
        out.append(("catalog without reference rigs: " + cmd[0], ["--catalog", "{tmp}/cat"] + cmd,
                    {"files": cat}))
    # The environment --engine ollama reads: every hostile value in each
    # variable, and terminal escapes; check and fit must refuse them by name.
    for var in OLLAMA_VARS:
        # An empty (or blank) variable is unset, as Ollama reads it: not an error.
        for what, value in VALUES + [("escape", "\x1b]0;x\x07\x1b[31m1"), ("blank-is-unset", "  "),
                                     ("quoted-empty-is-unset", "''"), ("empty-is-unset", "")]:
            if what in ("missing", "empty-eq", "empty"):
                continue
            for cmd in (["check", "--model", "clef-flash", "--rig", "rtx4090", "--quant", "Q4_K_M",
                         "--engine", "ollama"], ["fit", "--rig", "rtx4090", "--engine", "ollama", "--limit", "1"]):
                out.append(("%s %s %s" % (cmd[0], var, what), cmd, {"env": {var: value}}))
    # Prices files (buy --prices): escapes, a wrong type, a huge file, no file.
    for what, text in BROKEN_PRICES.items():
        out.append(("buy --prices " + what, ["buy", "--model", "clef-flash", "--prices", "{tmp}/p.json"],
                    {"files": {"p.json": text}}))
    out.append(("buy --prices directory", ["buy", "--model", "clef-flash", "--prices", "{tmp}"]))
    out.append(("buy --prices missing file", ["buy", "--model", "clef-flash", "--prices", "{tmp}/none.json"]))
    for what, text in BROKEN_RIGS.items():
        files = {"config/clefrun/rigs.json": text}
        for cmd in (["rig", "list"], ["rig", "add", "box2", "--mem-gb", "8", "--bw-gbs", "100"],
                    ["rig", "rm", "box"]):
            out.append(("saved rigs %s: %s" % (what, " ".join(cmd[:2])), cmd,
                        {"files": files, "unchanged": list(files)}))
    return out


BROKEN_PRICES = {
    "escape in what": '{"schema": 1, "currency": "USD", "prices": [{"rig": "rtx4090", "kind": "buy", "usd": 1, '
                      '"date": "2024-01", "what": "\\u001b]0;pwned\\u0007", "source": "https://x"}]}',
    "credential in source": '{"schema": 1, "currency": "USD", "prices": [{"rig": "rtx4090", "kind": "buy", '
                            '"usd": 1, "date": "2024-01", "what": "x", "source": "ftp://u:secret@x"}]}',
    "string for usd": '{"schema": 1, "currency": "USD", "prices": [{"rig": "rtx4090", "kind": "buy", "usd": "1", '
                      '"date": "2024-01", "what": "x", "source": "https://x"}]}',
    "nan usd": '{"schema": 1, "currency": "USD", "prices": [{"rig": "rtx4090", "kind": "buy", "usd": 1e999, '
               '"date": "2024-01", "what": "x", "source": "https://x"}]}',
    "deep nesting": '{"schema": 1, "currency": "USD", "prices": ' + "[" * 5000 + "]" * 5000 + "}",
    "huge": '{"schema": 1, "currency": "USD", "prices": [' + " " * (9 << 20) + "]}",
    "truncated": '{"schema": 1, "currency": "USD", "prices": [{"rig": "rtx4090"',
    "not utf-8": b'{"schema": 1, "currency": "USD", "prices": [{"rig": "rtx\xff4090"}]}',
}


def run(binary, args, wrapper, setup=None):
    tmp = tempfile.mkdtemp(prefix="clefrun-hostile.")
    setup = setup or {}
    try:
        for rel, text in setup.get("files", {}).items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode("latin-1"))
        argv = [a.replace("{tmp}", tmp).replace("{root}", ROOT) for a in args]
        vg_log = None
        prefix = []
        if wrapper == "valgrind":
            vg_log = os.path.join(tmp, "valgrind.log")
            prefix = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--log-file=" + vg_log]
        elif wrapper:
            prefix = shlex.split(wrapper)
        r = subprocess.run(prefix + [binary] + argv, cwd=tmp, capture_output=True,
                           env=clean_env(tmp, setup.get("env")), timeout=600, stdin=subprocess.DEVNULL)
        report = ""
        if vg_log and r.returncode == 99:
            with open(vg_log, encoding="utf-8", errors="replace") as f:
                report = f.read()
        stdout = r.stdout.decode("utf-8", "replace")
        stderr = r.stderr.decode("utf-8", "replace")
        # Make the record independent of the run: the temporary dir, the
        # overlong value.
        stdout, stderr = (s.replace(tmp, "<TMP>").replace(ROOT, "<ROOT>").replace(LONG, "<LONG>")
                          for s in (stdout, stderr))
        for rel in setup.get("unchanged", []):
            with open(os.path.join(tmp, rel), "rb") as f:
                if f.read() != setup["files"][rel].encode("latin-1"):
                    report += "%s was changed: a broken file must be left as it is\n" % rel
            # The lock of a load-modify-save (cr_userrigs_lock) is the one
            # file allowed beside it: empty, and never removed by design.
            here = os.path.dirname(os.path.join(tmp, rel))
            lock = os.path.basename(rel) + ".lock"
            leftovers = [n for n in os.listdir(here)
                         if n != os.path.basename(rel)
                         and not (n == lock and os.path.getsize(os.path.join(here, n)) == 0)]
            if leftovers:
                report += "files left beside %s: %s\n" % (rel, ", ".join(leftovers))
        return r.returncode, stdout, stderr, report
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def rules(name, code, stdout, stderr):
    """The rules every row obeys, recorded or not; a list of violations."""
    bad = []
    if code < 0:
        bad.append("killed by signal %d" % -code)
    elif code not in (0, 1, 2, 3):
        bad.append("exit %d is not a documented exit code" % code)
    cls = name.rsplit(" ", 1)[1]
    if name.startswith(("inspect GGUF", "saved rigs")) and code not in (0, 1):
        bad.append("a malformed file is a runtime error (exit 1), got %d" % code)
    if cls in ("missing", "empty-eq", "empty", "with-value") and code != 2:
        bad.append("a missing, empty or unexpected value must be a usage error (exit 2), got %d" % code)
    if code == 2:
        if stdout:
            bad.append("a usage error printed on stdout")
        if not stderr.strip():
            bad.append("a usage error printed no message")
    if "Sanitizer" in stderr or "runtime error:" in stderr:
        bad.append("sanitizer report")
    return bad


def main():
    argv = sys.argv[1:]
    update = "--update" in argv
    coverage = "--coverage" in argv
    only = registered = None
    if "--only" in argv:
        only = argv[argv.index("--only") + 1]
    if "--groups" in argv:
        registered = [g for g in argv[argv.index("--groups") + 1].split(";") if g]
    argv = [a for i, a in enumerate(argv)
            if a not in ("--update", "--coverage", "--only", "--groups")
            and (i == 0 or argv[i - 1] not in ("--only", "--groups"))]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[0])
    wrapper = os.environ.get("CLEFRUN_TEST_WRAPPER", "")
    cmds = commands(binary)
    missing = [c for c in cmds if c not in BASE]
    if missing:
        print("FAIL: no base command line for %s: add it to BASE in %s" % (", ".join(missing), __file__))
        return 1
    stale = [c for c in BASE if c not in cmds]
    if stale:
        print("FAIL: BASE has commands clefrun --help does not list: %s" % ", ".join(stale))
        return 1
    groups = cmds + ["(extra)"]
    if coverage:
        if registered is not None and sorted(registered) != sorted(groups):
            print("FAIL: tests/hostile/CMakeLists.txt registers %s; clefrun --help has %s"
                  % ("; ".join(registered), "; ".join(groups)))
            return 1
        print("ok: %d commands: %s" % (len(cmds), ", ".join(cmds)))
        return 0
    if only is not None:
        if only not in groups:
            print("FAIL: '%s' is not a command of clefrun --help nor (extra) (%s)" % (only, ", ".join(cmds)))
            return 1
        groups = [only]

    try:
        with open(EXPECTED, encoding="utf-8") as f:
            expected = json.load(f)
    except FileNotFoundError:
        expected = {}
    failures = 0
    seen = set()
    todo = []
    for group in groups:
        for row in (extra_rows() if group == "(extra)" else rows(binary, group)):
            todo.append((group,) + tuple(row))
    for group, name, args, *setup in todo:
        seen.add(name)
        code, stdout, stderr, report = run(binary, args, wrapper, setup[0] if setup else None)
        problems = rules(name, code, stdout, stderr)
        if report:
            problems.append(report)
        got = {"group": group, "args": args, "exit": code, "stderr": stderr}
        # stdout is recorded for errors only (it must be empty then); a
        # successful run's output is the golden tests' business.
        if code in (1, 2):
            got["stdout"] = stdout
        if update:
            if not problems:
                expected[name] = got
        else:
            want = expected.get(name)
            if want is None:
                problems.append("no recorded result (new option? run with --update, review)")
            else:
                for key in ("args", "exit", "stderr", "stdout"):
                    if want.get(key) != got.get(key):
                        problems.append("%s: expected %r, got %r" % (key, want.get(key), got.get(key)))
        if problems:
            failures += 1
            print("FAIL %s: clefrun %s" % (name, " ".join(shlex.quote(a[:60]) for a in args)))
            for p in problems:
                print("  " + p.rstrip("\n").replace("\n", "\n  "))
    gone = sorted(n for n, v in expected.items() if v.get("group") in groups and n not in seen)
    if update:
        for name in gone:
            del expected[name]
        with open(EXPECTED, "w", encoding="utf-8") as f:
            json.dump(dict(sorted(expected.items())), f, indent=1, ensure_ascii=False)
            f.write("\n")
    else:
        for name in gone:
            failures += 1
            print("FAIL %s: recorded, but the row is gone (an option left --help? run with --update)" % name)
    print("%s: %d rows, %d failures" % (", ".join(groups), len(seen), failures))
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
