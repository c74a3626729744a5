#!/usr/bin/env python3
"""The generated bash, zsh and fish completions, run in those shells.

    test_completions.py CLEFRUN GENERATED_DIR SOURCE_DIR

GENERATED_DIR holds clefrun.bash, _clefrun and clefrun.fish as the build
wrote them (scripts/gen-cli-md). For each shell, a command line is completed
and the candidates must include what is expected: commands, subcommands,
every option of every command (from its --help), option values, and catalog
model, rig and quant ids (which the completion gets from clefrun at the
time). bash runs the completion function directly (without the
bash-completion package); zsh runs in a pseudo-terminal (zsh-capture.zsh);
fish answers `complete -C`. A missing shell FAILS the test (Debian: apt-get
install zsh fish); it does not skip.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

CLEFRUN, GEN, SRC = (os.path.abspath(a) for a in sys.argv[1:4])
HERE = os.path.dirname(os.path.abspath(__file__))
check = T.check


tmp = tempfile.mkdtemp(prefix="clefrun-compl.")
bindir = os.path.join(tmp, "bin")
os.makedirs(bindir)
os.symlink(CLEFRUN, os.path.join(bindir, "clefrun"))
ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLEFRUN_")}
ENV.update(PATH=bindir + os.pathsep + os.environ.get("PATH", ""), NO_COLOR="1", LC_ALL="C.UTF-8",
           HOME=os.path.join(tmp, "home"), XDG_CONFIG_HOME=os.path.join(tmp, "config"),
           XDG_CACHE_HOME=os.path.join(tmp, "cache"), XDG_DATA_HOME=os.path.join(tmp, "data"))
os.makedirs(ENV["HOME"])


def clefrun(*args):
    return subprocess.run([CLEFRUN] + list(args), capture_output=True, text=True, env=ENV).stdout


# A saved rig, so that rig ids include one.
subprocess.run([CLEFRUN, "rig", "add", "my-box", "--mem-gb", "24", "--bw-gbs", "936"], env=ENV,
               capture_output=True)

# What every command and subcommand takes, from its --help.
units = []
for c in re.findall(r"^  ([a-z]+) ", clefrun("--help").split("commands:\n")[1].split("\n\n")[0], re.M):
    h = clefrun(c, "--help")
    subs = re.findall(rf"^  {c} ([a-z]+) ", h, re.M)
    units.append(([c], h))
    units += [([c, s], clefrun(c, s, "--help")) for s in subs]
options = {" ".join(u): re.findall(r"^  (?:-h, )?(--[a-z0-9-]+)", h, re.M) for u, h in units}

# (command line, words that must be among the candidates)
CASES = [
    ("clefrun ch", ["check"]),
    ("clefrun mo", ["models"]),
    ("clefrun --un", ["--units"]),
    ("clefrun rig ", ["add", "list", "show", "rm"]),
    ("clefrun check --format ", ["table", "json", "csv", "markdown"]),
    ("clefrun check --require ", ["fast", "ok", "slow", "tight"]),
    ("clefrun check --kv-type ", ["f16", "q8_0", "q4_0"]),
    ("clefrun check --rig rtx40", ["rtx4090"]),
    ("clefrun check --rig my-", ["my-box"]),
    ("clefrun check --rig loc", ["local"]),
    ("clefrun check --model clef-f", ["clef-flash"]),
    ("clefrun check --model clef-flash --quant Q4_K_", ["Q4_K_M", "Q4_K_S"]),
    ("clefrun fit --rig 2x3090 --workload ", ["chat", "decide"]),
    ("clefrun rig show dgx-s", ["dgx-spark"]),
    ("clefrun rig rm my-", ["my-box"]),
    ("clefrun rig add box --backend ", ["cuda", "metal", "rocm", "vulkan", "cpu"]),
    ("clefrun --units ", ["iec", "si"]),
]
for name, opts in options.items():
    if opts and name != "rig":
        CASES.append((f"clefrun {name} --", [o for o in opts if o != "--help"] + ["--help"]))


def bash(line):
    words = line.split(" ")
    script = (f"source {GEN}/clefrun.bash\n"
              "COMP_WORDS=(" + " ".join("'" + w + "'" for w in words) + ")\n"
              f"COMP_CWORD={len(words) - 1}\n_clefrun\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True, env=ENV)
    return p.stdout.split(), p.stderr


def zsh(line):
    fdir = os.path.join(tmp, "zfunc")
    if not os.path.isdir(fdir):
        os.makedirs(fdir)
        shutil.copy(os.path.join(GEN, "_clefrun"), fdir)
    p = subprocess.run(["zsh", "-f", os.path.join(HERE, "zsh-capture.zsh"), fdir, bindir, line],
                       capture_output=True, text=True, env=ENV, timeout=60)
    return p.stdout.split(), p.stderr


def fish(line):
    p = subprocess.run(["fish", "--no-config", "-c", f"source {GEN}/clefrun.fish; complete -C '{line}'"],
                       capture_output=True, text=True, env=ENV)
    return [x.split("\t")[0] for x in p.stdout.splitlines()], p.stderr


for shell, fn, syntax in (("bash", bash, ["bash", "-n"]), ("zsh", zsh, ["zsh", "-n"]),
                          ("fish", fish, ["fish", "--no-execute"])):
    path = {"bash": "clefrun.bash", "zsh": "_clefrun", "fish": "clefrun.fish"}[shell]
    if not shutil.which(shell):
        check(f"{shell} is installed (Debian: apt-get install {shell}; scripts/setup --with-tests)", False)
        continue
    p = subprocess.run(syntax + [os.path.join(GEN, path)], capture_output=True, text=True)
    check(f"{shell}: {path} parses", p.returncode == 0, p.stderr)
    for line, want in CASES:
        got, err = fn(line)
        missing = [w for w in want if w not in got]
        check(f"{shell}: '{line}' offers {' '.join(want) if len(want) < 6 else str(len(want)) + ' words'}",
              not missing, f"missing {missing}; got {got[:40]} {err[:300]}")
    got, _ = fn("clefrun check --format ")
    check(f"{shell}: '--format ' offers the formats only", sorted(got) == ["csv", "json", "markdown", "table"], got)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(T.summary())
