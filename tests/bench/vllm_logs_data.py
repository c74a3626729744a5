#!/usr/bin/env python3
"""bench/vllm-logs's CSV parsing (never its accuracy figures, which are a baseline):
the shipped bench/data/vllm_logs.csv loads with a URL on every row and its complete
rows parse; malformed files are refused with the file and line; the number parsing
of log cells ("1.56x @20000", "14.9888 (printed 'GB')") is exact."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import clefrun_test as T  # noqa: E402

B = T.load_script(os.path.join(ROOT, "bench", "vllm-logs"), "vllm_logs")
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

# The KV memory rule's parts: eras, the consistency of a row's logged terms, the per-era fit.
check("the V0 engine is its own era", B.era({"engine": "V0 (worker.py)"}) == "V0" and B.era({"engine": "V1"}) == "V1")
oss = [r for r in rows if "llm-d" in r["source_url"] and r["clefrun_model"] in ("gpt-oss-20b", "gpt-oss-120b")]
check("llm-d's gpt-oss-120b terms do not add up to the 71.26 GiB requested; gpt-oss-20b's do",
      [B.consistent(r) is None for r in oss] == [r["clefrun_model"] == "gpt-oss-20b" for r in oss] and len(oss) == 2,
      [(r["clefrun_model"], B.consistent(r)) for r in oss])
fake = [{"source_url": "https://a/%d" % i, "engine": e, "tensor_parallel_size": tp, "non_torch_gib": v}
        for i, (e, tp, v) in enumerate([("V0", "1", "1.0"), ("V0", "1", "3.0"), ("V1", "1", "0.1"), ("V1", "2", "0.5")])]
c = B.fit(fake, [])
check("non-torch memory is fitted per era and TP",
      c == {("nt1", "V0"): 2.0, ("nt1", "V1"): 0.1, ("nttp", "V1"): 0.5}, c)
check("a term of the row's era is its own; a missing one is borrowed from the other era",
      B.term(c, "nt1", "V1") == (0.1, False) and B.term(c, "nttp", "V0") == (0.5, True)
      and B.term(c, "sampler", "V1") == (None, False))
check("leaving a source out drops its rows from the fit",
      B.fit(fake, [], leave_out="https://a/2").get(("nt1", "V1")) is None)

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
