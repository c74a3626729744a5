// bench/memory-truth.d/probe.mjs: load one GGUF file in real llama.cpp (the CPU build that
// node-llama-cpp 3.21.1 bundles), create one context, and print what llama.cpp logged about
// its buffers, as one JSON line on stdout: {"ok", "error", "lines", "model_bytes",
// "context_bytes", "timing_ms"}. bench/memory-truth runs it once per case and parses the lines.
//
//   node probe.mjs '{"file": "m.gguf", "n_ctx": 4096, "flash_attn": "off", "type_k": "f16",
//                    "type_v": "f16", "n_ubatch": 512, "n_seq": 1, "swa_full": false,
//                    "mmap": true, "no_alloc": true}'
//
// It uses node-llama-cpp's internal addon bindings (llama._bindings.AddonModel / AddonContext,
// the path of its own "simulator session"), pinned to 3.21.1 in package.json, because:
//  - they take llama.cpp's parameters as they are: n_ctx as given, n_batch = n_ubatch, the
//    KV cache types as ggml type ids, swa_full, no_alloc (the public loadModel API pads the
//    context, adds a sequence for SWA models and picks its own batch size);
//  - the public API loses the debug log in about 4 % of runs (a race on the global log level);
//  - no_alloc sizes every buffer without allocating it, so a sparse full-size file (a 17 GB
//    Qwen3-30B-A3B that takes no disk) is measured in about a second and 120 MB of RAM.
// With no_alloc the model buffer lines print 0; the model's memory breakdown still has the
// sizes (model_bytes). Nothing is downloaded or compiled: build "never", CPU only.
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const GGML_TYPE = {f32: 0, f16: 1, q4_0: 2, q4_1: 3, q5_0: 6, q5_1: 7, q8_0: 8, bf16: 30};
const o = JSON.parse(process.argv[2] ?? "{}");
const out = {ok: false, error: null, lines: [], model_bytes: null, context_bytes: null, timing_ms: {}};
const done = (code) => { process.stdout.write(JSON.stringify(out) + "\n"); process.exit(code); };
if (!o.file) { out.error = "usage: node probe.mjs '{\"file\": ..., \"n_ctx\": ...}'"; done(2); }

const lines = [];
// Log lines arrive asynchronously: wait until none came for 100 ms.
const settle = async () => {
    let n = -1;
    while (n !== lines.length) { n = lines.length; await new Promise((r) => setTimeout(r, 100)); }
};
const keep = /load_backend|model buffer size|KV buffer size|kv_cache: size|kv_cache_iswa|recurrent: size|RS buffer size|compute buffer size|output buffer size|n_ctx |n_ctx_seq |n_batch |n_ubatch |n_seq_max|n_outputs_max |flash_attn |kv_unified|error|failed|requires|not supported/i;
const t0 = performance.now();
const llama = await getLlama({
    gpu: false, build: "never", logLevel: LlamaLogLevel.debug,
    logger(level, message) { for (const l of String(message).split("\n")) if (l.trim() !== "") lines.push(l); }
});
const B = llama._bindings;
const model = new B.AddonModel(o.file, {
    gpuLayers: 0, useMmap: o.mmap !== false, useMlock: false, noAlloc: o.no_alloc !== false
});
let loaded = false;
try { loaded = await model.init(); } catch (e) { out.error = "model load: " + String(e?.message ?? e); }
const t1 = performance.now();
if (loaded) {
    try {
        const ctx = new B.AddonContext(model, {
            contextSize: Number(o.n_ctx ?? 4096), batchSize: Number(o.n_ubatch ?? 512),
            sequences: Number(o.n_seq ?? 1),
            flashAttention: o.flash_attn === "on" ? true : o.flash_attn === "auto" ? "auto" : false,
            kvCacheKeyType: GGML_TYPE[String(o.type_k ?? "f16").toLowerCase()],
            kvCacheValueType: GGML_TYPE[String(o.type_v ?? "f16").toLowerCase()],
            swaFullCache: o.swa_full === true
        });
        if (!await ctx.init()) throw new Error("context init failed");
        out.context_bytes = ctx.getMemoryBreakdown()?.cpuRam ?? null;
        await ctx.dispose();
        out.ok = true;
    } catch (e) { out.error = "context: " + String(e?.message ?? e); }
    out.model_bytes = model.getMemoryBreakdown()?.cpuRam ?? null;
} else if (!out.error) {
    out.error = "model load failed";
}
const t2 = performance.now();
await settle();
out.lines = lines.filter((l) => keep.test(l));
out.timing_ms = {load: Math.round(t1 - t0), context: Math.round(t2 - t1),
                 rss_mib: Math.round(process.memoryUsage().rss / 1048576)};
try { await model.dispose(); await llama.dispose(); } catch { /* exiting anyway */ }
done(0);
