#!/usr/bin/env python3
"""ctest bench/memory-logs-data: the parsing side of bench/memory-logs, not its figures.

1. bench/data/gpu_memory_logs.csv passes `bench/memory-logs --check-data`: every
   required column, a URL on every row, every field of a complete row present and
   readable (buffer entries NAME:MiB, integers, flash attention on/off, a catalog id and
   quant or a not_estimable reason).
2. The K-quant mixes of the GGUF header fixtures: the per-tensor types bench/memory-logs
   gives Pythia 1.4B (24 layers) and 2.8B (32 layers) add up to the type counts the
   llama.cpp CI's logs print for those files (llama_model_loader: - type q4_K: N tensors).
3. The checker refuses what it must: each bad row of tests/bench/memory-logs-bad.csv is
   reported with its CSV line and the problem, a CSV without a required column and a
   missing file are refused, with exit status 2.

usage: memory_logs_data.py  (run from anywhere; paths are relative to this file)
"""
import collections
import importlib.machinery
import importlib.util
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


# Type counts as the CI logs of llama.cpp commit 4d2b3d88 print them (ggml-org/ci,
# llama.cpp/4d/2b3d88041705b20c30b3219838aa435e7ffbde/ggml-100-mac-m4/pythia_1_4b-tg-*.log and
# .../ggml-6-x86-vulkan-t4/pythia_2_8b-tg-*.log, .../ggml-4-x86-cuda-v100/pythia_2_8b-tg-q4_k.log),
# quantized tensors only (the f32 norms and biases are not the mix's).
KQUANT_LOGGED = {
    (24, "Q2_K"): {"Q2_K": 49, "Q3_K": 48, "Q6_K": 1},
    (24, "Q3_K_M"): {"Q3_K": 25, "Q4_K": 71, "Q5_K": 1, "Q6_K": 1},
    (24, "Q4_K_M"): {"Q4_K": 61, "Q5_K": 24, "Q6_K": 13},
    (24, "Q5_K_M"): {"Q5_K": 61, "Q6_K": 37},
    (24, "Q6_K"): {"Q6_K": 98},
    (32, "Q2_K"): {"Q2_K": 65, "Q3_K": 64, "Q6_K": 1},
    (32, "Q3_K_M"): {"Q3_K": 33, "Q4_K": 94, "Q5_K": 2, "Q6_K": 1},
    (32, "Q4_K_M"): {"Q4_K": 81, "Q5_K": 32, "Q6_K": 17},
    (32, "Q5_K_M"): {"Q5_K": 81, "Q6_K": 49},
}


def kquant_case():
    loader = importlib.machinery.SourceFileLoader("memory_logs", BENCH)
    spec = importlib.util.spec_from_loader("memory_logs", loader)
    bench = importlib.util.module_from_spec(spec)
    loader.exec_module(bench)
    fails = 0
    for (n, quant), want in sorted(KQUANT_LOGGED.items()):
        got = collections.Counter([bench.kquant_type(quant, "token_embd", 0, n),
                                   bench.kquant_type(quant, "output", 0, n)])
        for i in range(n):
            for kind in ("qkv", "attn_output", "ffn_up", "ffn_down"):
                got[bench.kquant_type(quant, kind, i, n)] += 1
        if dict(got) != want:
            print("FAIL K-quant mix %s, %d layers: %s, the CI log prints %s" % (quant, n, dict(got), want))
            fails += 1
    if not fails:
        print("ok   K-quant mixes (%d logged type counts)" % len(KQUANT_LOGGED))
    return fails


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
    fails = mmproj_case() + kquant_case()
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
