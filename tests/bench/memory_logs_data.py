#!/usr/bin/env python3
"""ctest bench/memory-logs-data: the parsing side of bench/memory-logs, not its figures.

1. bench/data/gpu_memory_logs.csv passes `bench/memory-logs --check-data`: every
   required column, a URL on every row, every field of a complete row present and
   readable (buffer entries NAME:MiB, integers, flash attention on/off, a catalog id and
   quant or a not_estimable reason).
2. The checker refuses what it must: each bad row of tests/bench/memory-logs-bad.csv is
   reported with its CSV line and the problem, a CSV without a required column and a
   missing file are refused, with exit status 2.

usage: memory_logs_data.py  (run from anywhere; paths are relative to this file)
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(ROOT, "bench", "memory-logs")

# (csv, expected exit status, messages that must all appear on stderr or stdout)
CASES = [
    (os.path.join(ROOT, "bench", "data", "gpu_memory_logs.csv"), 0,
     ["every row has a URL"]),
    (os.path.join(HERE, "memory-logs-bad.csv"), 2,
     ["memory-logs-bad.csv:2: source_url 'see the thread' is not a URL",
      "memory-logs-bad.csv:3: complete row without n_ctx",
      "memory-logs-bad.csv:4, kv_buffer_gpu_mib: cannot read buffer entry 'Vulkan0 448.00'",
      "memory-logs-bad.csv:5: complete must be yes or no, got 'maybe'",
      "memory-logs-bad.csv:6: a complete row must be mainline llama.cpp",
      "memory-logs-bad.csv:7: gguf:no-such-model Q8_0 has no GGUF header fixture"]),
    (os.path.join(HERE, "memory-logs-nocol.csv"), 2, ["missing columns: not_estimable"]),
    (os.path.join(HERE, "no-such-file.csv"), 2, ["no-such-file.csv: No such file or directory"]),
]


# bench/data/mmproj_compute_logs.csv's checker: every bad row of tests/bench/mmproj-logs-bad.csv
MMPROJ_BAD = os.path.join(HERE, "mmproj-logs-bad.csv")
MMPROJ_WANT = ["mmproj-logs-bad.csv:2: source_url 'see the issue' is not a URL",
               "mmproj-logs-bad.csv:3: flash_attn must be on, off or empty, got 'maybe'",
               "mmproj-logs-bad.csv:4: device_compute_mib 'lots' is not a number",
               "mmproj-logs-bad.csv:5: fixture 'mmproj-llava' is not one of"]


def mmproj_case():
    p = subprocess.run([sys.executable, BENCH, "--check-data", "--mmproj-csv", MMPROJ_BAD],
                       capture_output=True, text=True)
    out = p.stdout + p.stderr
    missing = [w for w in MMPROJ_WANT if w not in out]
    if p.returncode != 2 or missing:
        print("FAIL mmproj-logs-bad.csv: exit %d, missing %s\n%s" % (p.returncode, missing, out))
        return 1
    print("ok   mmproj-logs-bad.csv (exit 2)")
    return 0


def main():
    fails = mmproj_case()
    for path, want_rc, want in CASES:
        p = subprocess.run([sys.executable, BENCH, "--check-data", "--csv", path],
                           capture_output=True, text=True)
        out = p.stdout + p.stderr
        name = os.path.basename(path)
        if p.returncode != want_rc:
            print("FAIL %s: exit %d, want %d\n%s" % (name, p.returncode, want_rc, out))
            fails += 1
            continue
        missing = [w for w in want if w not in out]
        if missing:
            print("FAIL %s: missing from the output: %s\n%s" % (name, missing, out))
            fails += 1
            continue
        if want_rc != 0:
            # line 8 of the bad CSV is a good row: nothing may be said about it
            if "memory-logs-bad.csv:8" in out:
                print("FAIL %s: the good row (line 8) was reported\n%s" % (name, out))
                fails += 1
                continue
        print("ok   %s (exit %d)" % (name, p.returncode))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
