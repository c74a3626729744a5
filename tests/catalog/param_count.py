#!/usr/bin/env python3
"""Every model in data/models.json against an independent parameter count.

The count is rebuilt here from the entry's per-layer shapes, tensor by tensor
as the Hugging Face checkpoints hold them (the modelling code of each
architecture in transformers names the tensors), and must match the entry's
published total `params` within 1 %. Nothing here calls or copies the
estimator (src/lib/estimate): it is a second reading of the same data.

What is counted, per layer kind (docs/catalog.md "The parameter test"):
  embedding      vocab x hidden, plus an output head of the same size unless
                 tied_embeddings or the model is an embedding model ("task":
                 "embedding": the checkpoint is the bare transformer, no head)
  attention      F and S layers: q (heads x head_dim_k), k (kv_heads x
                 head_dim_k), v (kv_heads x head_dim_v), o (heads x head_dim_v)
                 projections; gated-attention archs double q; MLA: q_a/q_b (or
                 q) and kv_a/kv_b through the ranks; biases, sinks, q/k norms
                 where the arch has them
  linear attn    L layers (Gated DeltaNet): in_proj qkvz and ba, the causal
                 conv over q, k, v, dt_bias, A_log, the gated norm, out_proj
  FFN            gated (3 matrices) of width ffn, or experts.dense_ffn on the
                 experts.dense_layers leading dense layers of a MoE
  MoE            experts.total routed experts of width ffn, experts.shared
                 shared experts of width experts.shared_ffn (default ffn), the
                 router, arch-specific biases and shared-expert gates
  norms          per layer and final
  vision         the vision tower and merger of a multimodal entry ("vision")
Multi-token-prediction layers are not counted: llama.cpp does not load them,
and entries whose published total includes them give the total without them
and say so in their notes.

Run: param_count.py [data/models.json]. Exit 0 when all match, 1 otherwise.
"""
import json
import os
import sys

TOLERANCE = 0.01  # the catalog's rule: within 1 % of the published total

# Per-arch facts of the modelling code that the catalog does not carry as
# fields; each names the transformers module it comes from.
QKV_BIAS = {"qwen2", "glm4moe", "gpt-oss"}        # modeling_qwen2 / glm4_moe / gpt_oss: q,k,v bias
O_BIAS = {"gpt-oss"}                               # modeling_gpt_oss: o_proj bias
QK_NORM = {"qwen3", "qwen3moe", "gemma3", "qwen3next", "qwen35", "qwen35moe",
           "qwen3vl", "qwen3vlmoe"}                # modeling_qwen3_vl(_moe): the Qwen3 text stack
GATED_Q = {"qwen3next", "qwen35", "qwen35moe"}     # q_proj emits query and output gate
NORMS_PER_LAYER = {"gemma3": 4, "gemma2": 4}       # gemma2/3: pre/post attn, pre/post ffn
SINKS = {"gpt-oss"}                                # per-head attention sinks
EXPERT_BIAS = {"gpt-oss"}                          # gate_up and down biases per expert
ROUTER_BIAS = {"gpt-oss", "glm4moe", "deepseek2"}  # router bias / e_score_correction_bias
SHARED_GATE = {"qwen35moe", "qwen3next", "qwen2moe"}  # shared_expert_gate: hidden -> 1


def layer_kinds(m):
    pat = m.get("layer_pattern", "F")
    return [pat[i % len(pat)] for i in range(m["layers"])]


def kv_heads_of(m, i):
    kv = m["kv_heads"]
    return kv[i] if isinstance(kv, list) else kv


def attention(m, i):
    a, h = m["arch"], m["hidden"]
    nh, dk, dv = m["heads"], m["head_dim_k"], m["head_dim_v"]
    if "mla" in m:
        mla = m["mla"]
        r_kv, rope, r_q = mla["kv_lora_rank"], mla["rope_dim"], mla.get("q_lora_rank", 0)
        q = (h * r_q + r_q + r_q * nh * dk) if r_q else h * nh * dk
        kv = h * (r_kv + rope) + r_kv + r_kv * nh * ((dk - rope) + dv)
        return q + kv + nh * dv * h
    nkv = kv_heads_of(m, i)
    q = h * nh * dk * (2 if a in GATED_Q else 1)
    n = q + h * nkv * dk + h * nkv * dv + nh * dv * h
    if a in QKV_BIAS:
        n += nh * dk + nkv * dk + nkv * dv
    if a in O_BIAS:
        n += h
    if a in QK_NORM:
        n += 2 * dk
    if a in SINKS:
        n += nh
    return n


def linear_attention(m):
    la, h = m["linear_attention"], m["hidden"]
    nk, dk, nv, dv, conv = (la["k_heads"], la["k_head_dim"], la["v_heads"], la["v_head_dim"],
                            la["conv_kernel"])
    qkvz = h * (2 * nk * dk + 2 * nv * dv)
    ba = h * 2 * nv
    conv1d = (2 * nk * dk + nv * dv) * conv
    return qkvz + ba + conv1d + 2 * nv + dv + nv * dv * h


def ffn(m, i):
    """(total, active) FFN parameters of layer i."""
    a, h = m["arch"], m["hidden"]
    ex = m.get("experts")
    if not ex or i < ex.get("dense_layers", 0):
        width = ex["dense_ffn"] if ex else m["ffn"]
        n = 3 * h * width
        return n, n
    if ex.get("every", 1) > 1 and (i + 1) % ex["every"] != 0:
        n = 3 * h * ex["dense_ffn"]
        return n, n
    one = 3 * h * m["ffn"] + ((2 * m["ffn"] + h) if a in EXPERT_BIAS else 0)
    shared = ex["shared"] * 3 * h * ex.get("shared_ffn", m["ffn"])
    router = h * ex["total"] + (ex["total"] if a in ROUTER_BIAS else 0)
    if a in SHARED_GATE and ex["shared"]:
        shared += h
    return ex["total"] * one + shared + router, ex["used"] * one + shared + router


def vision(m):
    """Qwen-VL style vision tower (transformers modeling_qwen3_vl / qwen3_5): a
    Conv3d patch embedding, learned positions, ViT blocks (LayerNorms, fused
    qkv and proj with biases, a two-layer MLP with biases) and the patch merger
    (LayerNorm, two linears) into the text model's hidden size. Qwen3-VL adds
    `deepstack` mergers (Qwen3VLVisionPatchMerger with use_postshuffle_norm:
    the LayerNorm over the merged width) feeding intermediate ViT layers."""
    vi = m.get("vision")
    if not vi:
        return 0
    h, f, out = vi["hidden"], vi["ffn"], m["hidden"]
    patch = 3 * vi["temporal_patch"] * vi["patch"] ** 2 * h + h
    pos = vi["positions"] * h
    block = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * f + f) + (f * h + h)
    wide = h * vi["merge"] ** 2
    merger = 2 * h + (wide * wide + wide) + (wide * out + out)
    deepstack = vi.get("deepstack", 0) * (2 * wide + (wide * wide + wide) + (wide * out + out))
    return patch + pos + vi["layers"] * block + merger + deepstack


def count(m):
    """(total, active) parameters: the text stack plus a vision tower."""
    h, v = m["hidden"], m["vocab"]
    emb = v * h
    head = 0 if m["tied_embeddings"] or m.get("task") == "embedding" else v * h
    norms = NORMS_PER_LAYER.get(m["arch"], 2) * h
    total = active = emb + head + h + vision(m)
    for i, k in enumerate(layer_kinds(m)):
        mix = linear_attention(m) if k == "L" else attention(m, i)
        ft, fa = ffn(m, i)
        total += mix + ft + norms
        active += mix + fa + norms
    return total, active


def self_check(models):
    """The count must move with the fields it reads: each probe changes one
    field of the first model that has it and must push that model past the
    tolerance. Returns the failures."""
    import copy
    probes = (
        ("ffn doubled", lambda m: "experts" not in m, lambda m: m.update(ffn=m["ffn"] * 2)),
        ("layers doubled", lambda m: True, lambda m: m.update(layers=m["layers"] * 2)),
        ("experts.total doubled", lambda m: "experts" in m,
         lambda m: m["experts"].update(total=m["experts"]["total"] * 2)),
        ("linear_attention v_heads doubled", lambda m: "linear_attention" in m and m["hidden"] <= 2048,
         lambda m: m["linear_attention"].update(v_heads=m["linear_attention"]["v_heads"] * 2)),
        ("vision layers doubled", lambda m: "vision" in m and m["hidden"] <= 4096,
         lambda m: m["vision"].update(layers=m["vision"]["layers"] * 4)),
        ("vision deepstack mergers dropped", lambda m: m.get("vision", {}).get("deepstack"),
         lambda m: m["vision"].pop("deepstack")),
    )
    bad = []
    for name, has, change in probes:
        m = next((x for x in models if has(x)), None)
        if m is None:
            bad.append("%s: no model to probe" % name)
            continue
        m = copy.deepcopy(m)
        change(m)
        if abs(count(m)[0] / m["params"] - 1) <= TOLERANCE:
            bad.append("%s: %s still within %.0f %%" % (name, m["id"], 100 * TOLERANCE))
    return bad


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "data", "models.json")
    with open(path, encoding="utf-8") as f:
        models = json.load(f)["models"]
    bad = 0
    for m in models:
        total, active = count(m)
        err = total / m["params"] - 1
        ok = abs(err) <= TOLERANCE
        print("%-4s %-28s computed %16d published %16d %+6.2f %%  (active computed %d, listed %d)"
              % ("ok" if ok else "FAIL", m["id"], total, m["params"], 100 * err, active,
                 m["active_params"]))
        if not ok:
            bad += 1
    if len(models) < 1:
        print("FAIL: no models in", path)
        return 1
    for msg in self_check(models):
        print("FAIL: self-check:", msg)
        bad += 1
    print("%d of %d models within %.0f %% of their published total" % (len(models) - bad, len(models),
                                                                   100 * TOLERANCE))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
