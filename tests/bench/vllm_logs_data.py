#!/usr/bin/env python3
"""bench/vllm-logs's CSV parsing (never its accuracy figures, which are a baseline):
the shipped bench/data/vllm_logs.csv loads with a URL on every row and its complete
rows parse; malformed files are refused with the file and line; the number parsing
of log cells ("1.56x @20000", "14.9888 (printed 'GB')") is exact."""
import importlib.machinery
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import clefrun_test as T  # noqa: E402

loader = importlib.machinery.SourceFileLoader("vllm_logs", os.path.join(ROOT, "bench", "vllm-logs"))
spec = importlib.util.spec_from_loader("vllm_logs", loader)
B = importlib.util.module_from_spec(spec)
loader.exec_module(B)
check = T.check

rows = B.load(B.CSV_DEFAULT)
check("the shipped CSV has at least 41 rows", len(rows) >= 41, len(rows))
check("every row has a URL", all(r["source_url"].startswith("https://") for r in rows))
paging = [r for r in rows if B.paging_complete(r) is None]
check("at least 8 rows complete for the paging figures", len(paging) >= 8, len(paging))
check("complete rows have a KV memory and a length",
      all(B.num(r["kv_cache_memory_gib"]) > 0 and B.max_len(r) > 0 for r in paging))
check("number cells", B.num("14.9888 (printed 'GB')") == 14.9888 and B.num("-2.14") == -2.14 and B.num("") is None)
check("concurrency cells", B.concurrency("1.56x @20000") == (1.56, 20000) and B.concurrency("1.56x") is None)
check("the length falls back to the concurrency cell",
      B.max_len({"max_model_len": "", "max_concurrency": "2.83x @16384"}) == 16384)
check("an unidentified checkpoint is not complete",
      B.paging_complete(dict(rows[0], clefrun_model="")) == "checkpoint not identified in the catalog")
check("an unmodelled KV dtype is not complete",
      "not modelled" in (B.paging_complete(dict(paging[0], kv_cache_dtype="nvfp4")) or ""))

header = ",".join(B.REQUIRED)


def refused(text, want):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    try:
        B.load(f.name)
        return False, "loaded"
    except B.DataError as e:
        return want in str(e) and f.name in str(e), str(e)
    finally:
        os.unlink(f.name)


blank = [""] * len(B.REQUIRED)


def line(**kv):
    cells = list(blank)
    for k, v in kv.items():
        cells[B.REQUIRED.index(k)] = v
    return ",".join(cells)


check("a missing column is refused", *refused("source_url,engine\nhttps://x,V1\n", "missing columns"))
check("a row without a URL is refused, with its line",
      *refused(header + "\n" + line(source_url="https://a/1") + "\n" + line(source_url="nope") + "\n", "line 3: source_url"))
check("a malformed concurrency is refused",
      *refused(header + "\n" + line(source_url="https://a/1", max_concurrency="4.33 @1") + "\n", "line 2: max_concurrency"))
check("a malformed catalog id is refused",
      *refused(header + "\n" + line(source_url="https://a/1", clefrun_model="Qwen 3") + "\n", "clefrun_model"))
sys.exit(T.summary())
