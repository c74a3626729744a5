#!/usr/bin/env python3
"""bench/memory-truth's pure-Python parts (the bench itself needs Node.js and llama.cpp and is
not part of ctest): llama.cpp's log lines parse into the right MiB figures, probe.c's output
splits per context, the draft context's spec is llama-server's, the target band is 3 % or
64 MiB, GGUF tensor bytes are read from a header, and --write-doc replaces exactly the block
under its heading."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import clefrun_test as T  # noqa: E402

B = T.load_script(os.path.join(ROOT, "bench", "memory-truth"), "memory_truth")
check = T.check

# llama.cpp v0.4.0 log lines, as probe.mjs and probe.c pass them on
LOG = """load_backend: loaded CPU backend from /x/bins/linux-x64/libggml-cpu-haswell.so
load_tensors:          CPU model buffer size =  2.93 MiB
load_tensors:   CPU_REPACK model buffer size =  1.50 MiB
llama_context:        CPU  output buffer size =     1.96 MiB
llama_kv_cache: size =   48.00 MiB ( 16384 cells,   3 layers,  1/1 seqs), K (f16):   24.00 MiB, V (f16):   24.00 MiB
llama_kv_cache: size =   15.00 MiB (  1024 cells,  15 layers,  1/1 seqs), K (f16):    7.50 MiB, V (f16):    7.50 MiB
llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  1 seqs), R (f32):    2.25 MiB, S (f32):   48.00 MiB
sched_reserve:        CPU compute buffer size =   308.01 MiB""".split("\n")
f = B.parse(LOG)
check("two KV caches (full and sliding) with cells and layers", f["kv"] == [(48.0, 16384, 3), (15.0, 1024, 15)], f["kv"])
check("recurrent state", f["rs"] == [50.25], f["rs"])
check("compute and output buffers", f["compute"] == 308.01 and f["output"] == 1.96, (f["compute"], f["output"]))
check("model buffers by type", f["model_buffers"] == {"CPU": 2.93, "CPU_REPACK": 1.5}, f["model_buffers"])
check("CPU backend variant", f["backend"] == "haswell", f["backend"])
check("an empty log parses to nothing", B.parse([])["compute"] is None and B.parse([])["kv"] == [])

# probe.c: "probe: spec N" / "probe: free N" route the lines that follow to context N
OUT = "\n".join(["load_backend: loaded CPU backend", "probe: spec 0", LOG[4], "probe: model_bytes 0 4788813824",
                 LOG[7], "probe: ok 0", "probe: spec 1", "probe: failed 1 context", "probe: free 0",
                 "~llama_context: freed", "probe: free 1", "probe: done", "probe: ok 7"])
s = B.split_cprobe(OUT, 2)
check("context 0: ok, its bytes and its lines", s[0]["ok"] and s[0]["model_bytes"] == 4788813824 and
      s[0]["lines"] == [LOG[4], LOG[7], "~llama_context: freed"], s[0])
check("context 1: failed with the reason, no bytes", not s[1]["ok"] and s[1]["error"] == "context" and
      s[1]["model_bytes"] is None, s[1])
check("lines before the first spec and markers of unknown specs are dropped",
      "load_backend: loaded CPU backend" not in s[0]["lines"] + s[1]["lines"])
check("no output: every context failed", [x["ok"] for x in B.split_cprobe("", 3)] == [False] * 3)

# the draft context is llama-server's: f16 KV whatever the target's, one output per sequence
case = dict(ctx=16384, ubatch=512, n_seq=4, fa="on", k="q8_0", v="q8_0", swa_full=False, unified=True)
t, d = B.cspec("t.gguf", case, True, "target"), B.cspec("d.gguf", case, True, "draft")
check("target spec beside a draft: its own KV types, logits for 1 + K per slot, unified",
      t["type_k"] == 8 and t["type_v"] == 8 and t["n_outputs_max"] == 4 * (1 + B.DRAFT_MAX) and
      t["n_outputs_per_seq"] == 1 + B.DRAFT_MAX and t["kv_unified"] == 1, t)
check("a plain context: a full batch of logits", B.cspec("t.gguf", case, True)["n_outputs_max"] == 0)
check("draft spec: f16 KV, n_outputs_max = n_seq, same context, sequences and micro-batch",
      d["type_k"] == 1 and d["type_v"] == 1 and d["n_outputs_max"] == 4 and
      (d["n_ctx"], d["n_seq"], d["n_ubatch"], d["kv_unified"]) == (16384, 4, 512, 1), d)
sv = B.cspec("t.gguf", dict(case, k="f16", v="f16"), True, "server")
check("llama-server without a draft: one output per slot, its KV types",
      sv["n_outputs_max"] == 4 and sv["n_outputs_per_seq"] == 1 and sv["type_k"] == 1 and sv["kv_unified"] == 1, sv)
check("a mini file is allocated for real", B.cspec("m.gguf", case, False)["no_alloc"] == 0)

# the target band: 3 % or 64 MiB, whichever is larger
check("64 MiB below 2133 MiB", B.within(1000, 1064) and not B.within(1000, 1064.5))
check("3 % above it", B.within(4000, 4120) and not B.within(4000, 4121))
check("a total is model + KV + state + compute + output",
      abs(B.ctx_total(f, 1048576 * 10) - (10 + 63 + 50.25 + 308.01 + 1.96)) < 1e-9)

with tempfile.TemporaryDirectory() as tmp:
    # GGUF tensor bytes from the header (what the mmproj rows compare with)
    path = os.path.join(tmp, "mm.gguf")
    T.gguf_write(path, "--preset", "mmproj-tiny")
    ts = B.read_tensors(path)
    size = os.path.getsize(path)
    total = sum(x[3] for x in ts)
    check("mmproj-tiny: tensors read, their bytes within the file", len(ts) > 10 and 0 < total < size, (len(ts), total, size))
    check("tensor names and types", any(n.startswith("v.blk.0.") for n, _, _, _ in ts) and
          {x[2] for x in ts} <= set(B.GW.GGML), sorted({x[2] for x in ts}))

    # --write-doc: the block under the heading, up to the next "## ", and nothing else
    doc = os.path.join(tmp, "acc.md")
    with open(doc, "w") as fh:
        fh.write("# A\n\nintro\n\n%s\n\nold 1\nold 2\n\n## Next\n\nkept\n" % B.DOC_HEADING)
    import contextlib
    import io
    with contextlib.redirect_stderr(io.StringIO()):
        B.write_doc(doc, "- new\n\n| a |\n|---|\n| 1 |\n\n")
    with open(doc) as fh:
        got = fh.read()
    check("write-doc replaces the block", got == "# A\n\nintro\n\n%s\n\n- new\n\n| a |\n|---|\n| 1 |\n\n## Next\n\nkept\n"
          % B.DOC_HEADING, repr(got))
    with open(doc, "w") as fh:
        fh.write("# no heading\n")
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            B.write_doc(doc, "x")
        refused = False
    except SystemExit as e:
        refused = "has no line" in str(e)
    check("write-doc refuses a page without the heading", refused)
    with open(doc) as fh:
        check("and leaves it as it was", fh.read() == "# no heading\n")

# gguf-write --nextn 1 (the mtp group's files): one more block, the NextN key, and the layer's
# nextn tensors after the trunk's 4 blocks of mini-qwen35, whose block 4 is a full-attention layer
with tempfile.TemporaryDirectory() as d:
    import subprocess
    path = os.path.join(d, "n.gguf")
    subprocess.run([sys.executable, B.WRITER, "--preset", "mini-qwen35", "--nextn", "1", "-o", path], check=True)
    names = [t[0] for t in B.read_tensors(path)]
    check("gguf-write --nextn: blk.4 carries the NextN tensors", all(
        "blk.4.nextn.%s.weight" % x in names for x in ("eh_proj", "enorm", "hnorm", "shared_head_norm")), names[-8:])
    check("and attention, not Gated DeltaNet", "blk.4.attn_q.weight" in names and "blk.4.ssm_a" not in names)
    check("the trunk has no NextN tensors", not any(".nextn." in n and not n.startswith("blk.4.") for n in names))

sys.exit(T.summary())
