#!/usr/bin/env python3
"""bench/batched-bench's and bench/speculative-bench's CSV parsing (never its accuracy figures): the shipped CSV parses and has
scorable tables; a row without an https URL and a row with a non-number are refused with their line;
a file missing a column is refused naming it."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench", "batched-bench")


def run(*args):
    p = subprocess.run([sys.executable, BENCH, "--parse-only"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout + p.stderr


def main():
    fails = []
    rc, out = run()
    if rc != 0 or " rows, " not in out or out.split()[3] == "0":
        fails.append("shipped CSV: rc %d, %r" % (rc, out))
    src = os.path.join(ROOT, "bench", "data", "batched_bench.csv")
    with open(src) as f:
        lines = f.read().splitlines()
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.csv")
        with open(bad, "w") as f:
            f.write("\n".join([lines[0], lines[1], lines[2].replace("https://", "ftp://", 1)]) + "\n")
        rc, out = run(bad)
        if rc != 1 or "bad.csv:3: source_url" not in out:
            fails.append("non-https URL: rc %d, %r" % (rc, out))
        cols = lines[0].split(",")
        i = cols.index("S_TG_tps")
        row = lines[1].split(",")
        row[i] = "fast"
        with open(bad, "w") as f:
            f.write("\n".join([lines[0], ",".join(row)]) + "\n")
        rc, out = run(bad)
        if rc != 1 or "bad.csv:2: S_TG_tps is not a number" not in out:
            fails.append("non-number: rc %d, %r" % (rc, out))
        with open(bad, "w") as f:
            f.write(lines[0].replace("S_TG_tps", "S_TG") + "\n")
        rc, out = run(bad)
        if rc != 1 or "missing columns S_TG_tps" not in out:
            fails.append("missing column: rc %d, %r" % (rc, out))
    # bench/speculative-bench reads its CSV the same way.
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "speculative-bench"), "--parse-only"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0 or not p.stdout.strip().endswith(" rows") or p.stdout.split()[0] == "0":
        fails.append("speculative CSV: rc %d, %r" % (p.returncode, p.stdout + p.stderr))
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "spec.csv")
        with open(os.path.join(ROOT, "bench", "data", "speculative.csv")) as f:
            sl = f.read().splitlines()
        with open(bad, "w") as f:
            f.write("\n".join([sl[0], sl[1].replace("https://", "http://", 1)]) + "\n")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "speculative-bench"), "--parse-only", bad],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 1 or "spec.csv:2: source_url" not in p.stderr:
            fails.append("speculative non-https URL: rc %d, %r" % (p.returncode, p.stderr))
    for x in fails:
        print("FAIL:", x)
    print("batched-bench-data: %d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
