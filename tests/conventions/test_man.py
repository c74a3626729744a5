#!/usr/bin/env python3
"""The man page clefrun(1) the build wrote (scripts/gen-cli-md --format man).

    test_man.py CLEFRUN MAN_PAGE

groff formats it without a warning (-ww), and its COMMAND REFERENCE has a
section for every command and subcommand of `clefrun --help` holding every
option of that command's --help, so the page says what the binary does. A
missing groff FAILS the test (Debian: apt-get install groff-base).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

CLEFRUN, MAN = sys.argv[1:3]
check = T.check


def clefrun(*args):
    return subprocess.run([CLEFRUN] + list(args), capture_output=True, text=True,
                          env={"NO_COLOR": "1", "LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout


groff = shutil.which("groff")
check("groff is installed (Debian: apt-get install groff-base)", groff is not None)
if groff:
    p = subprocess.run([groff, "-man", "-Tascii", "-ww", "-P", "-cbou", MAN], capture_output=True, text=True)
    check("groff -man -ww formats clefrun.1 without warnings", p.returncode == 0 and not p.stderr, p.stderr)
    text = p.stdout
    version = clefrun("--version").split()[1]
    check("the page header names the version", f"clefrun {version}" in text.splitlines()[-1], text.splitlines()[-1])
    for sec in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "GLOBAL OPTIONS", "COMMAND REFERENCE",
                "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"):
        check(f"section {sec}", re.search(rf"^{sec}$", text, re.M) is not None)
    ref = text.split("\nCOMMAND REFERENCE\n", 1)[-1].split("\nOUTPUT\n", 1)[0]
    # Sections "   clefrun UNIT" in the rendered reference.
    parts = re.split(r"^   clefrun ([a-z]+(?: [a-z]+)?)$", ref, flags=re.M)
    sections = dict(zip(parts[1::2], parts[2::2]))
    cmds = re.findall(r"^  ([a-z]+) ", clefrun("--help").split("commands:\n")[1].split("\n\n")[0], re.M)
    units = []
    for c in cmds:
        units.append(c)
        units += [f"{c} {s}" for s in re.findall(rf"^  {c} ([a-z]+) ", clefrun(c, "--help"), re.M)]
    for u in units:
        opts = re.findall(r"^  (--[a-z0-9-]+)", clefrun(*u.split(), "--help"), re.M)
        own = [o for o in opts if o not in ("--quiet", "--units")]
        body = sections.get(u)
        missing = [o for o in own if body is None or not re.search(rf"^ +{re.escape(o)}\b", body, re.M)]
        check(f"clefrun {u}: a section with its {len(own)} options", body is not None and not missing, missing)
    glob_opts = re.findall(r"^  (?:-h, )?(--[a-z0-9-]+)", clefrun("--help").split("global options:\n")[1], re.M)
    gsec = text.split("\nGLOBAL OPTIONS\n", 1)[-1].split("\nCOMMAND REFERENCE\n", 1)[0]
    check("GLOBAL OPTIONS lists " + " ".join(glob_opts), all(o in gsec for o in glob_opts), gsec[:400])
sys.exit(T.summary())
