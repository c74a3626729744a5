#!/usr/bin/env python3
"""README.md against the program it describes.

    test_readme.py CLEFRUN SOURCE_DIR

1. The sample output (the ```console block: a "$ ./build/clefrun ..." line, then
   what it prints) is what the binary prints now, byte for byte.
2. Every example command (```sh blocks, lines that start with ./build/clefrun)
   that needs no network runs without a usage or other error (exit 0 or 3).
3. The --format sentence is true: each command it lists with
   table|json|csv|markdown has exactly that option in its --help, chart has
   only svg, and report, rig add and rig rm have none.
4. No internal jargon: "seed page" is not a phrase a reader can look up.

After a change of the output, refresh the sample by running its command and
pasting what it prints (NO_COLOR=1).
"""
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
CLEFRUN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
check = T.check

ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLEFRUN_") and not k.startswith("HF_")}
ENV.update(NO_COLOR="1", LC_ALL="C")


def run(args):
    return subprocess.run([CLEFRUN] + args, capture_output=True, text=True, env=ENV, cwd=SRC, timeout=120)


with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
    readme = f.read()

# 1. the sample output
samples = re.findall(r"```console\n\$ (\./build/clefrun [^\n]*)\n(.*?)```", readme, re.S)
check("README has a sample output", len(samples) >= 1)
for cmd, want in samples:
    p = run(shlex.split(cmd)[1:])
    check(f"sample '{cmd}' is what the binary prints", p.stdout == want and p.returncode == 0,
          f"exit {p.returncode}\n--- README\n{want}--- binary\n{p.stdout}{p.stderr}")

# 2. the examples run
examples = [line for block in re.findall(r"```sh\n(.*?)```", readme, re.S)
            for line in block.splitlines() if line.startswith("./build/clefrun ")]
check("README has examples", len(examples) >= 3, examples)
for line in examples:
    if "hf:" in line or "http" in line or "ollama:" in line:
        continue  # needs the network or a store: tests/source reads the same kinds of source from fixtures and loopback servers
    p = run(shlex.split(line)[1:])
    check(f"example '{line}' runs (exit 0 or 3)", p.returncode in (0, 3), p.stderr)

# 3. the --format sentence
m = re.search(r"Every command takes `--help`\. (.*?)take\s+`--format table\|json\|csv\|markdown`", readme, re.S)
check("README says which commands take --format", m is not None)
listed = re.findall(r"`([a-z]+(?: [a-z]+)?)`", m.group(1)) if m else []
check("... and lists them", len(listed) >= 9, listed)
for cmd in listed:
    p = run(cmd.split() + ["--help"])
    check(f"{cmd} --help has --format table, json, csv or markdown", p.returncode == 0 and
          re.search(r"--format F +table, json, csv or markdown", p.stdout) is not None, p.stdout[:500])
for cmd in ("report", "rig add", "rig rm"):
    p = run(cmd.split() + ["--help"])
    check(f"{cmd} --help has no --format (as README says)", p.returncode == 0 and "--format" not in p.stdout,
          p.stdout[:500])
p = run(["chart", "--help"])
check("chart --help: --format svg only (as README says)", re.search(r"--format F +svg \(the only format\)", p.stdout)
      is not None, p.stdout[:500])

# 4. jargon
check("README has no internal jargon", re.search(r"seed[- ]page", readme, re.I) is None)

sys.exit(T.summary())
