#!/usr/bin/env python3
"""The command-line conventions of clefrun, checked on the built binary.

    test_conventions.py CLEFRUN SOURCE_DIR

- --help on every command and subcommand `clefrun --help` lists: exit 0,
  "usage: " on stdout, nothing on stderr; the global options work after the
  command too.
- --version: the library's version (include/clefrun/version.h, and
  CMakeLists.txt's project version), the catalog's version and date (the
  last commit that changed data/ in a git checkout) and the SHA-256 of the
  data files.
- Colour: the TIER column is coloured on a terminal (a pseudo-terminal
  here), with the tier still written; never with NO_COLOR set, TERM=dumb or
  stdout not a terminal; with the colour codes taken out, the table is the
  same as without colour.
- --quiet leaves out the heading and footer lines and keeps every table line.
- --units si: GB (10^9 bytes) in the tables and their headings, the same
  memory as GiB; JSON and CSV unchanged (raw bytes).
- --format csv is RFC 4180 (checked with a strict parser of the RFC's
  grammar) for every command that writes CSV, quoting included.
- --format markdown renders as GitHub renders it (cmark-gfm, GitHub's own
  CommonMark, with its table extension): one <table> per table, every row
  with the header's number of cells, no stray list items or headings.
- docs/ci.md: its workflow is YAML, and the clefrun commands it runs work.
- Every `_INIT` macro of include/clefrun and src is a designated initialiser:
  each member named (`.field = value`), so adding a field cannot shift the
  defaults of the others.
- The GGUF code is layered (src/lib/gguf/gguf_types.h): gguf_types.c, gguf.c,
  gguf_meta.c, gguf_model.c, each calling no function defined in a file
  above it, and gguf_types.c not including gguf_internal.h.
Needs cmark-gfm and Python's yaml (Debian: apt-get install cmark-gfm
python3-yaml); without them the test FAILS, it does not skip.
"""
import hashlib
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
CLEFRUN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
check = T.check

tmp = tempfile.mkdtemp(prefix="clefrun-conv.")
ENV = T.clean_env(os.path.join(tmp, "home"), XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                  XDG_CACHE_HOME=os.path.join(tmp, "cache"))
FIX = os.path.join(SRC, "tests", "detect", "fixtures")


def run(args, env=None, codes=(0,)):
    e = dict(ENV)
    e.update(env or {})
    p = subprocess.run([CLEFRUN] + args, capture_output=True, env=e, timeout=120)
    if p.returncode not in codes:
        check(f"clefrun {' '.join(args)}: exit {p.returncode}", False, p.stderr.decode(errors="replace"))
    return p


def out(args, env=None, codes=(0,)):
    return run(args, env, codes).stdout.decode()


# ---- --help everywhere -------------------------------------------------------------
main_help = out(["--help"])
commands = []
m = re.search(r"^commands:\n((?:  \S.*\n)+)", main_help, re.M)
check("clefrun --help lists the commands", m is not None, main_help)
if m:
    commands = [line.split()[0] for line in m.group(1).splitlines()]
units = []
for c in commands:
    units.append([c])
    h = run([c, "--help"]).stdout.decode()
    for sub in re.findall(rf"^  {re.escape(c)} ([a-z]+) ", h, re.M):
        units.append([c, sub])
check("clefrun has commands and subcommands", len(commands) >= 8 and len(units) > len(commands), units)
for u in units:
    for flag in ("--help", "-h"):
        p = run(u + [flag])
        so = p.stdout.decode()
        check(f"clefrun {' '.join(u)} {flag}: usage on stdout, nothing on stderr",
              p.returncode == 0 and so.startswith("usage: clefrun " + " ".join(u)) and not p.stderr,
              so[:200] + p.stderr.decode())
    if len(u) == 1 and u[0] == "rig":
        continue  # "rig" only names its subcommands
    p = run(u + ["--quiet", "--units", "si", "--help"])
    check(f"clefrun {' '.join(u)} takes the global options after its name", p.returncode == 0)

# ---- --version ------------------------------------------------------------------------
version = out(["--version"])
with open(os.path.join(SRC, "include", "clefrun", "version.h")) as f:
    hv = re.search(r'#define CR_VERSION_STRING "([^"]+)"', f.read()).group(1)
with open(os.path.join(SRC, "CMakeLists.txt")) as f:
    pv = re.search(r"project\(clefrun VERSION ([0-9.]+)", f.read()).group(1)
check("version.h and CMakeLists.txt agree on the version", hv == pv, f"{hv} vs {pv}")
m = re.fullmatch(r"clefrun (\S+) \(libclefrun (\S+)\)\n"
                 r"catalog (\S+) of (\d{4}-\d\d-\d\d) \(sha256 ([0-9a-f]{12})\), built in\n", version)
check("--version: two lines, versions, catalog version, date and digest", m is not None, version)
if m:
    check("--version: the library's version", m.group(1) == hv and m.group(2) == hv, version)
    digest = hashlib.sha256()
    for n in ("models", "quants", "rigs"):
        with open(os.path.join(SRC, "data", n + ".json"), "rb") as f:
            digest.update(f.read())
    check("--version: the SHA-256 of data/models.json, quants.json, rigs.json",
          m.group(5) == digest.hexdigest()[:12], f"{m.group(5)} vs {digest.hexdigest()[:12]}")
    git = shutil.which("git")
    if git and os.path.exists(os.path.join(SRC, ".git")):
        g = subprocess.run([git, "-C", SRC, "log", "-1", "--format=%cs", "--", "data"], capture_output=True, text=True)
        if g.returncode == 0 and g.stdout.strip():
            check("--version: the catalog date is the last commit that changed data/",
                  m.group(4) == g.stdout.strip(), f"{m.group(4)} vs git {g.stdout.strip()}")
    check("--version: the catalog version (default: the date with dots)",
          m.group(3) == m.group(4).replace("-", ".") or "CLEFRUN_CATALOG_VERSION" in os.environ, m.group(3))
v2 = out(["--catalog", os.path.join(SRC, "tests", "cli", "fixtures", "mini"), "--version"])
check("--version names a --catalog in use", v2.endswith("catalog in use: " +
      os.path.join(SRC, "tests", "cli", "fixtures", "mini") + " (--catalog)\n"), v2)

# ---- colour ----------------------------------------------------------------------------
SGR = re.compile(r"\x1b\[[0-9;]*m")


def on_tty(args, env):
    """stdout and stderr of clefrun on a pseudo-terminal."""
    e = dict(ENV)
    e.pop("NO_COLOR", None)
    e.update(env)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(CLEFRUN, [CLEFRUN] + args, e)
    chunks = []
    while True:
        try:
            r, _, _ = select.select([fd], [], [], 30)
            if not r:
                break
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode().replace("\r\n", "\n")


ARGS = ["check", "--model", "llama-3.1-70b", "--rig", "rtx4090", "--rig", "2x3090", "--rig", "m4-max-128",
        "--rig", "rtx3060-12", "--rig", "dgx-spark", "--quant", "Q4_K_M", "--quant", "Q2_K"]
plain = out(ARGS, codes=(3,))
tty = on_tty(ARGS, {"TERM": "xterm"})
tiers = {"fast": "32", "ok": "33", "slow": "35", "tight": "35", "no-fit": "31"}
seen = set(re.findall(r"\x1b\[(\d+)m(fast|ok|slow|tight|no-fit)\x1b\[0m", tty))
check("colour on a terminal: the TIER column", len(seen) >= 3 and all(tiers[t] == c for c, t in seen), repr(tty[:600]))
check("colour only around the tier words, at the end of rows",
      len(SGR.findall(tty)) == 2 * len(re.findall(r"\x1b\[\d+m(?:fast|ok|slow|tight|no-fit)\x1b\[0m", tty))
      and all(line.rstrip().endswith("\x1b[0m") for line in tty.splitlines() if "\x1b[" in line), repr(tty[:600]))
check("without the colour codes, the same table as without colour", SGR.sub("", tty) == plain,
      repr(SGR.sub("", tty)[:300]) + "\n" + repr(plain[:300]))
for label, env in (("NO_COLOR=1", {"NO_COLOR": "1", "TERM": "xterm"}), ("TERM=dumb", {"TERM": "dumb"})):
    t = on_tty(ARGS, env)
    check(f"no colour with {label}", "\x1b[" not in t and t == plain, repr(t[:300]))
t = on_tty(ARGS, {"NO_COLOR": "", "TERM": "xterm"})
check("an empty NO_COLOR does not turn colour off (no-color.org)", "\x1b[32m" in t or "\x1b[31m" in t, repr(t[:300]))
e = dict(ENV)
e.pop("NO_COLOR")
e["TERM"] = "xterm"
p = subprocess.run([CLEFRUN] + ARGS, capture_output=True, env=e)
check("no colour when stdout is not a terminal", b"\x1b[" not in p.stdout and p.stdout.decode() == plain)
for fmt in ("markdown", "csv", "json"):
    t = on_tty(ARGS + ["--format", fmt], {"TERM": "xterm"})
    check(f"no colour in --format {fmt}, even on a terminal", "\x1b[" not in t)

# ---- --quiet --------------------------------------------------------------------------------
QUIET_CASES = [
    ["check", "--model", "clef-flash", "--rig", "rtx4090"],
    ["check", "--model", "clef-flash", "--rig", "rtx5090", "--quant", "Q4_K_M", "--format", "markdown"],
    ["fit", "--rig", "2x3090", "--limit", "5"],
    ["rig", "show", "dgx-spark"],
    ["detect", "--root", os.path.join(FIX, "nvidia2")],
    ["models"],
]
for args in QUIET_CASES:
    full = out(args, codes=(0, 3))
    before = out(["--quiet"] + args, codes=(0, 3))
    after = out(args + ["--quiet"], codes=(0, 3))
    lines = [x for x in before.splitlines() if x.strip()]
    full_lines = full.splitlines()
    head = before.splitlines()[0] if before else ""
    check(f"--quiet {' '.join(args)}: the same before and after the command", before == after)
    check(f"--quiet {' '.join(args)}: only lines of the full output, fewer of them",
          all(x in full_lines for x in lines) and (len(lines) < len([x for x in full_lines if x.strip()]) or args == ["models"]),
          before[:400])
    check(f"--quiet {' '.join(args)}: starts with a table's header row",
          re.match(r"^(\| )?[A-Z#][A-Z0-9 /+#.]*( {2,}| \| )", head) is not None, head)

# ---- --units ------------------------------------------------------------------------------
ARGS = ["check", "--model", "clef", "--rig", "rtx4090", "--rig", "2x3090", "--quant", "Q4_K_M"]
iec, si = out(ARGS), out(["--units", "si"] + ARGS)
gib = re.findall(r"(\d+\.\d+) GiB / (\d+\.\d+) GiB", iec)
gb = re.findall(r"(\d+\.\d+) GB / (\d+\.\d+) GB", si)
check("--units si: memory in GB, no GiB left in the table", gb and "GiB" not in si.split("KV grows")[-1].split("\n\n")[1],
      si)
check("--units si: the same memory as GiB", len(gib) == len(gb) and all(
    abs(float(a) * 2**30 / 1e9 - float(b)) <= 0.06 * max(1, float(b)) for (a, _), (b, _) in zip(gib, gb)), (gib, gb))
for fmt in ("json", "csv"):
    check(f"--units si does not change --format {fmt} (raw bytes)",
          out(ARGS + ["--format", fmt]) == out(["--units", "si"] + ARGS + ["--format", fmt]))
rigs_si = out(["rigs", "--units", "si"]).splitlines()
check("--units si: rigs heads its column MEMORY GB", "MEMORY GB" in rigs_si[0] and "GiB" not in rigs_si[0], rigs_si[0])
check("--units iec (the default): MEMORY GiB", "MEMORY GiB" in out(["rigs"]).splitlines()[0])
p = run(["--units", "kb", "models"], codes=(2,))
check("--units rejects other units (exit 2)", p.returncode == 2 and b"expected iec or si" in p.stderr, p.stderr)

# ---- CSV: RFC 4180 -------------------------------------------------------------------------
# file = [header CRLF] record *(CRLF record) [CRLF]; field = escaped / non-escaped;
# escaped = DQUOTE *(TEXTDATA / COMMA / CR / LF / 2DQUOTE) DQUOTE; non-escaped = *TEXTDATA.
# TEXTDATA is printable ASCII but the quote and comma in the RFC; UTF-8 text
# beyond ASCII is allowed here (RFC 7111's text/csv charset).
TEXTDATA = r'[^",\r\n\x00-\x1f\x7f]'
FIELD = re.compile(r'"(?:[^"]|"")*"|' + TEXTDATA + "*")


def parse_csv(text):
    """Records of an RFC 4180 document, or raise ValueError saying where it breaks."""
    records, i, n = [], 0, len(text)
    if not text.endswith("\r\n"):
        raise ValueError("does not end with CRLF")
    while i < n:
        rec = []
        while True:
            m = FIELD.match(text, i)
            f = m.group(0)
            rec.append(f[1:-1].replace('""', '"') if f.startswith('"') else f)
            i = m.end()
            if text.startswith(",", i):
                i += 1
                continue
            if text.startswith("\r\n", i):
                i += 2
                break
            raise ValueError(f"byte {i}: expected a comma or CRLF, got {text[i:i + 20]!r}")
        records.append(rec)
    widths = {len(r) for r in records}
    if len(widths) != 1:
        raise ValueError(f"records of {sorted(widths)} fields")
    return records


os.makedirs(ENV["XDG_CONFIG_HOME"])
run(["rig", "add", "box", "--mem-gb", "24", "--bw-gbs", "936", "--devices", "2", "--name",
     'Box, "the fast one"', "--notes", "line one"])
CSV_CASES = [
    ["check", "--model", "clef-flash"],
    ["check", "--model", "deepseek-r1", "--rig", "rtx4090", "--rig", "box"],
    ["fit", "--rig", "rtx4090", "--all"],
    ["fit", "--rig", "m3-ultra-512", "--all", "--ctx", "200000"],
    ["models"], ["rigs"], ["quants"],
    ["rig", "list"], ["rig", "show", "box"], ["rig", "show", "4xh100"],
    ["detect", "--root", os.path.join(FIX, "nvidia2")],
]
for args in CSV_CASES:
    text = out(args + ["--format", "csv"], codes=(0, 3))
    try:
        recs = parse_csv(text)
        check(f"csv {' '.join(args)}: RFC 4180, {len(recs) - 1} records of {len(recs[0])} fields",
              len(recs) >= 2 and all(h and h == h.strip() for h in recs[0]), recs[0])
    except ValueError as e:
        check(f"csv {' '.join(args)}: RFC 4180", False, f"{e}\n{text[:300]!r}")
rl = parse_csv(out(["rig", "list", "--format", "csv"]))
check("csv quotes a field with a comma and quotes, doubling the quotes",
      rl[1][1] == 'Box, "the fast one"' and '"Box, ""the fast one"""' in out(["rig", "list", "--format", "csv"]), rl)

# ---- Markdown, as GitHub renders it --------------------------------------------------------------
cmark = shutil.which("cmark-gfm")
if not cmark:
    check("cmark-gfm is installed (Debian: apt-get install cmark-gfm; scripts/setup --with-tests)", False,
          "the Markdown checks do not skip")


class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.row, self.cell, self.li, self.headings = [], None, None, 0, 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""
        elif tag == "li":
            self.li += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr":
            self.tables[-1].append(self.row)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


MD_CASES = [
    (["check", "--model", "clef-flash"], 1, 0),
    (["check", "--model", "clef-flash", "--rig", "rtx4090", "--quant", "Q4_K_M", "--explain"], 1, 0),
    (["check", "--model", "clef-omni", "--rig", "rtx5090", "--rig", "rtx4090", "--quant", "Q4_K_M"], 1, 0),
    (["fit", "--rig", "rtx4090", "--all"], 1, 0),
    (["models"], 1, 0), (["rigs"], 1, 0), (["quants"], 1, 0),
    (["rig", "show", "box"], 1, 0),
    (["detect", "--root", os.path.join(FIX, "nvidia2")], 2, 0),
]
for args, ntables, nheadings in MD_CASES if cmark else []:
    md = out(args + ["--format", "markdown"], codes=(0, 3))
    html = subprocess.run([cmark, "-e", "table", "-e", "autolink", "-e", "strikethrough"], input=md,
                          capture_output=True, text=True).stdout
    t = Tables()
    t.feed(html)
    pipe_rows = [x for x in md.splitlines() if x.startswith("|")]
    ok = len(t.tables) == ntables and all(len({len(r) for r in tab}) == 1 for tab in t.tables) and \
        sum(len(tab) for tab in t.tables) == len(pipe_rows) - ntables and t.li == 0 and t.headings == nheadings
    check(f"markdown {' '.join(args)}: {ntables} GitHub table(s), every row whole, nothing else turned into markup",
          ok, f"tables {[len(x) for x in t.tables]}, rows {len(pipe_rows)}, list items {t.li}, "
              f"headings {t.headings}\n{html[:800]}")
    cells = [c for tab in t.tables for row in tab for c in row]
    check(f"markdown {' '.join(args)}: cells keep their text (ids, '|', '*')",
          all("\\|" not in c for c in cells) and (args[0] != "check" or any(re.fullmatch(r"Q\d_K_M", c) for c in cells)),
          cells[:20])
md = out(["check", "--model", "clef-flash", "--rig", "rtx5090", "--format", "markdown"])
check("markdown: the heading line is bold", re.search(r"<p><strong>Clef-flash", subprocess.run(
    [cmark, "-e", "table"], input=md, capture_output=True, text=True).stdout) is not None if cmark else False)

# ---- docs/ci.md: the workflow is YAML and its clefrun commands run -----------------------------
with open(os.path.join(SRC, "docs", "ci.md"), encoding="utf-8") as f:
    ci = f.read()
blocks = re.findall(r"```yaml\n(.*?)```", ci, re.S)
check("docs/ci.md has a GitHub Actions workflow", len(blocks) == 1)
try:
    import yaml
except ImportError:
    yaml = None
    check("the Python module yaml is installed (Debian: python3-yaml)", False, "the workflow check does not skip")
if blocks and yaml:
    try:
        wf = yaml.safe_load(blocks[0])
        steps = wf["jobs"]["fit"]["steps"]
        runs = [st["run"] for st in steps if "run" in st]
        check("docs/ci.md: the workflow parses, with a job of steps", len(runs) >= 3)
    except Exception as e:  # any parse or shape error is the failure
        runs = []
        check("docs/ci.md: the workflow parses, with a job of steps", False, e)
    cmds = [ln.strip() for r in runs for ln in r.splitlines() if re.match(r"\s*clefrun ", ln)]
    check("docs/ci.md: the workflow runs clefrun check with --require and --format markdown",
          any("--require" in c and "--format markdown" in c for c in cmds), cmds)
    shim = os.path.join(tmp, "shim")
    os.makedirs(shim, exist_ok=True)
    os.symlink(CLEFRUN, os.path.join(shim, "clefrun"))
    for c in cmds:
        e = dict(ENV)
        e["PATH"] = shim + os.pathsep + os.environ.get("PATH", "")
        p = subprocess.run(["sh", "-c", c], capture_output=True, text=True, env=e)
        check(f"docs/ci.md runs: {c[:90]}", p.returncode in (0, 3), p.stderr)



def init_macros():
    """(file, name, body) of every #define NAME_INIT in include/clefrun and src."""
    found = []
    for top in ("include/clefrun", "src"):
        for dirpath, _, files in os.walk(os.path.join(SRC, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".c")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read().replace("\\\n", " ")
                for m in re.finditer(r"^#define\s+(\w+_INIT)\b(.*)$", text, re.M):
                    found.append((os.path.relpath(path, SRC), m.group(1), m.group(2).strip()))
    return found


def top_level_items(body):
    """The comma-separated items inside the outer braces of body, or None."""
    if not (body.startswith("{") and body.endswith("}")):
        return None
    items, depth, cur = [], 0, ""
    for ch in body[1:-1]:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        items.append(cur.strip())
    return items


macros = init_macros()
check("there are _INIT macros to check", len(macros) >= 8, macros)
for path, name, body in macros:
    items = top_level_items(body)
    check(f"{path}: {name} is a designated initialiser",
          items is not None and items and all(re.match(r"\.\w+\s*=", it) for it in items), body)


GGUF_LAYERS = ["gguf_types.c", "gguf.c", "gguf_meta.c", "gguf_model.c"]


def defined_functions(text):
    """Names of the non-static functions a C file defines (a definition
    starts at column 0: type, name, parameters; its body opens on the next
    line)."""
    return set(re.findall(r"^(?!static\b)[a-z][\w \t*]*?\b(\w+)\([^;{]*\)\n\{", text, re.M))


def code_of(text):
    """text without comments and string literals."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


gguf_src = {}
for name in GGUF_LAYERS:
    with open(os.path.join(SRC, "src", "lib", "gguf", name), encoding="utf-8") as fh:
        gguf_src[name] = fh.read()
defs = {name: defined_functions(gguf_src[name]) for name in GGUF_LAYERS}
check("the GGUF layers define functions", all(defs[n] for n in GGUF_LAYERS), defs)
for i, lower in enumerate(GGUF_LAYERS):
    code = code_of(gguf_src[lower])
    above = {f: hi for hi in GGUF_LAYERS[i + 1:] for f in defs[hi]}
    used = sorted(f"{f} ({hi})" for f, hi in above.items() if re.search(r"\b%s\(" % f, code))
    check(f"src/lib/gguf/{lower} calls nothing defined above it", not used, used)
check("src/lib/gguf/gguf_types.c does not include gguf_internal.h",
      "gguf_internal.h" not in code_of(gguf_src["gguf_types.c"]).replace('""', "")
      and '#include "gguf_internal.h"' not in gguf_src["gguf_types.c"])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(T.summary())
