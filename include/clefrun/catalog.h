/**
 * @file catalog.h
 * @brief The catalog: models, quantization presets and hardware rigs.
 *
 * A catalog is three JSON documents (models.json, quants.json, rigs.json;
 * format in docs/catalog.md). The shipped ones are compiled into the library
 * (cr_catalog_load_embedded); cr_catalog_load_dir reads a directory instead.
 * Loading validates every field and rejects the first problem with a message
 * naming the file and the JSON path, e.g.
 * "data/rigs.json: rigs[3].devices[0].bandwidth_gbs: expected a positive number".
 *
 * The records below are plain structs with their units in the field names;
 * the estimator (estimate.h) takes them as they are, whether they came from
 * the catalog, a custom rig spec (rig.h) or, later, a GGUF header.
 */
#ifndef CLEFRUN_CATALOG_H
#define CLEFRUN_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_ID_MAX 48        /**< ids: 47 characters and a terminator */
#define CR_NAME_MAX 128     /**< display names */
#define CR_TEXT_MAX 1024    /**< notes */
#define CR_URL_MAX 512      /**< one source URL */
#define CR_MAX_LAYERS 512   /**< most transformer blocks a model may have */
#define CR_MAX_DEVICE_GROUPS 4
#define CR_MAX_SOURCES 4
#define CR_ALIAS_MAX 96     /**< an alias: 95 characters and a terminator */
#define CR_MAX_ALIASES 6    /**< aliases per model */

/** Attention kind of one layer. */
typedef enum cr_layer_kind {
	CR_LAYER_FULL = 0,      /**< full attention: KV grows with the context */
	CR_LAYER_SLIDING = 1,   /**< sliding-window or chunked attention: KV capped */
	CR_LAYER_RECURRENT = 2  /**< linear attention / SSM: no KV, fixed state */
} cr_layer_kind;

/** Sublayers a layer lacks (cr_model.layer_parts; 0: a mixer and an FFN).
 *  A layer without a mixer has layer_kind CR_LAYER_FULL and kv_heads 0: no
 *  attention, no KV (llama.cpp nemotron_h's MLP layers: head_count_kv 0). */
#define CR_LAYER_NO_MIXER 1u    /**< no attention or recurrent mixer (an FFN-only block) */
#define CR_LAYER_NO_FFN 2u      /**< no FFN (a mixer-only block, Nemotron-H) */

/** Recurrent-layer dimensions, per layer: Gated DeltaNet as its config names
 *  them, or Mamba-2 mapped as llama.cpp's GGUF keys do (cr_model.mamba):
 *  k_heads = n_groups, k_head_dim = d_state, v_heads = heads (ssm.time_step_rank),
 *  v_head_dim = head_dim, so that v_heads x v_head_dim = d_inner. The state
 *  sizes follow from either (estimate.h cr_estimate_state_bytes). */
typedef struct cr_linear_attn {
	uint32_t k_heads, k_head_dim; /**< key heads and width */
	uint32_t v_heads, v_head_dim; /**< value heads and width */
	uint32_t conv_kernel;         /**< short convolution kernel length */
} cr_linear_attn;

/** Vision tower of a multimodal model (a ViT and the merger that projects its
 *  patches into the text model's hidden size), as its config.json gives it.
 *  All 0 for a text-only model. Counted by the parameter test
 *  (docs/catalog.md) and sized as an mmproj file by cr_vision_from_model (vision.h). */
typedef struct cr_vision {
	uint32_t layers, hidden, ffn; /**< ViT depth, width, MLP width */
	uint32_t patch, temporal_patch; /**< patch side, frames per patch */
	uint32_t positions;           /**< learned position embeddings */
	uint32_t merge;               /**< spatial merge: merge x merge patches per token */
	uint32_t deepstack;           /**< extra mergers feeding ViT layers to the text stack (Qwen3-VL
				           deepstack_visual_indexes); 0 when none */
} cr_vision;

/** What a model is run for. An embedding or reranking model reads its input
 *  and returns a vector or a score: it generates no text, so the estimator
 *  gives it no decode speed and judges its tier on prefill (estimate.h). */
typedef enum cr_model_task {
	CR_TASK_GENERATION = 0, /**< a text generator (the default) */
	CR_TASK_EMBEDDING,      /**< an embedding model: pooled hidden state, no output head */
	CR_TASK_RERANK,         /**< a reranker: a relevance score per query-document pair */
	CR_TASK_COUNT
} cr_model_task;

/** A model's architecture and published facts. */
typedef struct cr_model {
	char id[CR_ID_MAX];
	char name[CR_NAME_MAX];
	char family[CR_ID_MAX];
	char developer[CR_NAME_MAX];
	char license[CR_ID_MAX];
	char released[16];
	char backbone[CR_ID_MAX];   /**< catalog id of the base model, or "" */
	char arch[CR_ID_MAX];       /**< llama.cpp architecture name */
	uint64_t params;            /**< total parameters */
	uint64_t active_params;     /**< parameters read per token (MoE: active) */
	uint32_t context_max;       /**< training context, tokens */
	uint32_t vocab;
	uint32_t n_layers;
	uint32_t hidden;            /**< n_embd */
	uint32_t ffn;               /**< dense FFN width; MoE: one expert */
	uint32_t n_heads;
	uint32_t head_dim_k, head_dim_v;
	uint16_t kv_heads[CR_MAX_LAYERS];   /**< per layer; 0 = no KV */
	uint8_t layer_kind[CR_MAX_LAYERS];  /**< cr_layer_kind per layer */
	uint8_t layer_parts[CR_MAX_LAYERS]; /**< CR_LAYER_NO_MIXER / CR_LAYER_NO_FFN per layer; 0: both */
	uint32_t window;            /**< sliding window / chunk, tokens (0 if none) */
	cr_linear_attn linear;      /**< set when some layer is recurrent */
	bool mamba;                 /**< the recurrent layers are Mamba-2 (linear holds its mapping) */
	bool mla;                   /**< multi-head latent attention */
	uint32_t mla_kv_lora_rank, mla_rope_dim;
	uint32_t mla_q_lora_rank;   /**< query low-rank width; 0: a full q projection */
	uint32_t experts_total, experts_used, experts_shared; /**< 0 when dense */
	uint32_t experts_dense_layers; /**< MoE: leading layers with a dense FFN instead */
	uint32_t experts_dense_ffn;    /**< their FFN width (0 when none) */
	uint32_t experts_shared_ffn;   /**< shared expert width; 0: same as ffn */
	uint32_t experts_every;        /**< MoE on every n-th layer only (layers n-1, 2n-1, ...), dense FFN
					    of experts_dense_ffn between; 0: every layer */
	/** Multi-token-prediction (NextN) layers the model ships beside its trunk
	 *  (config.json num_nextn_predict_layers / mtp_num_hidden_layers; a GGUF's
	 *  {arch}.nextn_predict_layers, counted there among n_layers as the last
	 *  ones). llama.cpp v0.4.0 loads their weights only for --spec-type
	 *  draft-mtp (common/common.cpp:1714 load_mtp; the loader skips them
	 *  otherwise), so no estimate counts their weights; cr_plan_mtp (plan.h)
	 *  counts them and drafts with them. 0 when none. */
	uint32_t mtp_layers;
	/** Of a catalog model's mtp_layers, those a llama.cpp GGUF carries and
	 *  whose KV cache llama.cpp's main context allocates although its graph
	 *  never reads it (the generic llama_kv_cache, no layer filter:
	 *  glm4moe; cr_catalog_load sets it). Sized as full-attention layers of
	 *  the trunk's widest KV. A GGUF's own MTP layers carry their KV in
	 *  kv_heads instead, so it is 0 there. */
	uint32_t mtp_kv_layers;
	char mtp_source[CR_URL_MAX];  /**< where mtp_layers was read, "" when 0 */
	cr_vision vision;           /**< vision tower; all 0 when text-only */
	bool tied_embeddings;
	cr_model_task task;         /**< CR_TASK_GENERATION unless the catalog says "task" */
	/** Native quantization: the routed-expert tensors ship quantized (gpt-oss:
	 *  MXFP4) and GGUF files keep them so at every preset; "" / 0 when none.
	 *  Presets are then sized per tensor type (estimate.h). */
	char native_type[CR_ID_MAX];  /**< ggml type of those tensors, "MXFP4" */
	double native_bpw;            /**< its bits per weight (MXFP4: 4.25) */
	char native_source[CR_URL_MAX]; /**< where the native format and the file sizes are stated */
	char notes[CR_TEXT_MAX];
	char sources[CR_MAX_SOURCES][CR_URL_MAX];
	unsigned n_sources;
	/** Other names that find this model (a Hugging Face repo "Qwen/Qwen3-8B",
	 *  an Ollama tag "qwen3:8b"): cr_catalog_find_model matches them, ignoring
	 *  case, after the ids. The loader refuses an alias that equals an id or
	 *  another alias. */
	char aliases[CR_MAX_ALIASES][CR_ALIAS_MAX];
	unsigned n_aliases;
} cr_model;

/** A quantization preset (a llama-quantize mix). */
typedef struct cr_quant {
	char id[CR_ID_MAX];          /**< "Q4_K_M" */
	double bpw;                  /**< whole-file average bits per weight */
	char base_type[CR_ID_MAX];   /**< ggml type of most tensors */
	char description[CR_NAME_MAX];
	char source[CR_URL_MAX];
} cr_quant;

/** llama.cpp backend family. */
typedef enum cr_backend {
	CR_BACKEND_CUDA = 0,
	CR_BACKEND_METAL,
	CR_BACKEND_ROCM,
	CR_BACKEND_VULKAN,
	CR_BACKEND_CPU,
	CR_BACKEND_COUNT
} cr_backend;

/** What kind of memory a device has. */
typedef enum cr_mem_kind {
	CR_MEM_DISCRETE = 0, /**< dedicated VRAM */
	CR_MEM_UNIFIED,      /**< shared with the OS, GPU may use a share */
	CR_MEM_SYSTEM,       /**< system RAM read by the CPU */
	CR_MEM_KIND_COUNT
} cr_mem_kind;

/** Memory technology of a device: the speed model's achievable share of
 *  peak bandwidth depends on it (docs/accuracy.md). */
typedef enum cr_mem_type {
	CR_MEMTYPE_AUTO = 0, /**< from the kind: discrete GDDR, unified LPDDR, system DDR */
	CR_MEMTYPE_HBM,
	CR_MEMTYPE_GDDR,
	CR_MEMTYPE_LPDDR,
	CR_MEMTYPE_DDR,
	CR_MEMTYPE_COUNT
} cr_mem_type;

/** Who makes the device (the Vulkan backend runs on all of them). */
typedef enum cr_vendor {
	CR_VENDOR_AUTO = 0, /**< from the backend: cuda NVIDIA, rocm AMD, metal Apple, else other */
	CR_VENDOR_NVIDIA,
	CR_VENDOR_AMD,
	CR_VENDOR_APPLE,
	CR_VENDOR_INTEL,
	CR_VENDOR_OTHER,
	CR_VENDOR_COUNT
} cr_vendor;

/** Default usable_fraction of a device, by memory kind and platform, when the
 *  catalog or a spec gives none (docs/methodology.md "Usable memory"; the
 *  sources are cited in src/lib/catalog/catalog.c). Discrete memory: 1. */
#define CR_USABLE_METAL_SMALL (2.0 / 3.0)     /**< macOS GPU wired limit, up to CR_USABLE_METAL_SMALL_MAX_GIB */
#define CR_USABLE_METAL_SMALL_MAX_GIB 36.0    /**< largest RAM, GiB, that gets CR_USABLE_METAL_SMALL */
#define CR_USABLE_METAL_LARGE 0.75            /**< macOS GPU wired limit above that */
#define CR_USABLE_UNIFIED_CUDA 0.79           /**< Linux CUDA unified memory (DGX Spark, Jetson) */
#define CR_USABLE_UNIFIED_OTHER 0.75          /**< ROCm/Vulkan unified memory (Strix Halo) */
#define CR_USABLE_SYSTEM 0.9                  /**< system RAM (a clefrun policy) */

/** A group of identical devices within a rig. */
typedef struct cr_device {
	char name[CR_NAME_MAX];
	uint32_t count;           /**< number of such devices */
	double memory_gib;        /**< per device, 2^30 bytes */
	double bandwidth_gbs;     /**< per device, 10^9 bytes/s, vendor peak */
	double fp16_tflops;       /**< per device, dense FP16 tensor rate (a GPU without tensor
				       cores, and a CPU: its FP32 FMA rate, which the CPU's prefill
				       and decode per-parameter time use); 0 = unknown */
	double int8_tops;         /**< per device, the int8 dot-product rate llama.cpp's quantized
				       matmuls (MMQ) run at, where it is not 2 x fp16_tflops as on
				       tensor-core GPUs (Pascal GP102/GP104: dp4a, 4 x the FP32
				       rate); 0 = 2 x fp16_tflops */
	double bf16_tflops;       /**< per device, the rate BF16 weight GEMMs reach on a GPU
				       without BF16 arithmetic (Vega 20: its FP32 rate, hipBLAS
				       computes BF16 in FP32); 0 = fp16_tflops */
	double compute_capability; /**< per device, an NVIDIA GPU's CUDA compute capability
				       (major.minor, e.g. 7.0 for Volta GV100), which selects
				       llama.cpp's CUDA kernel paths; 0 = not stated */
	cr_backend backend;
	cr_mem_kind kind;
	double usable_fraction;   /**< share usable by the runtime, (0, 1] */
	cr_mem_type mem_type;     /**< AUTO (0) unless the catalog states it */
	cr_vendor vendor;         /**< AUTO (0) unless the catalog states it */
} cr_device;

/** A machine: one or more device groups. */
typedef struct cr_rig {
	char id[CR_NAME_MAX];     /**< catalog ids have at most CR_ID_MAX - 1 characters; custom specs more */
	char name[CR_NAME_MAX];
	bool reference;           /**< one of the 22 reference rigs of the seeds */
	bool unreleased;          /**< the hardware does not exist as described */
	cr_device devices[CR_MAX_DEVICE_GROUPS];
	unsigned n_devices;       /**< device groups used */
	double interconnect_gbs;  /**< per-GPU link, 0 if none */
	double seed_memory_gb;    /**< the seeds' figure, 0 if none */
	double seed_bandwidth_gbs;
	char notes[CR_TEXT_MAX];
	char sources[CR_MAX_SOURCES][CR_URL_MAX];
	unsigned n_sources;
} cr_rig;

/** An opaque, immutable catalog. */
typedef struct cr_catalog cr_catalog;

/**
 * Load the catalog compiled into the library.
 * @param out receives a catalog the caller frees with cr_catalog_free.
 * @return 0, or a negative cr_status with @p err filled (if non-NULL).
 */
int cr_catalog_load_embedded(cr_catalog **out, cr_error *err);

/**
 * Load models.json, quants.json and rigs.json from a directory.
 * Messages name the files as "DIR/models.json".
 */
int cr_catalog_load_dir(const char *dir, cr_catalog **out, cr_error *err);

/**
 * Load a catalog from three in-memory JSON documents. @p names gives the
 * file names used in messages (models, quants, rigs); NULL uses
 * "models.json", "quants.json", "rigs.json". The buffers need not be
 * NUL-terminated and are not kept.
 */
int cr_catalog_load_buffers(const char *models, size_t models_len,
			    const char *quants, size_t quants_len,
			    const char *rigs, size_t rigs_len,
			    const char *const names[3],
			    cr_catalog **out, cr_error *err);

/** Free a catalog; NULL is a no-op. Records obtained from it die with it. */
void cr_catalog_free(cr_catalog *cat);

/** Counts and indexed access (index < count; NULL otherwise). Owned by the catalog. */
size_t cr_catalog_model_count(const cr_catalog *cat);
const cr_model *cr_catalog_model_at(const cr_catalog *cat, size_t i);
size_t cr_catalog_quant_count(const cr_catalog *cat);
const cr_quant *cr_catalog_quant_at(const cr_catalog *cat, size_t i);
size_t cr_catalog_rig_count(const cr_catalog *cat);
const cr_rig *cr_catalog_rig_at(const cr_catalog *cat, size_t i);

/** Look up by id (models and rigs: exact, case-insensitive; quants: case-insensitive). NULL if absent. */
const cr_model *cr_catalog_find_model(const cr_catalog *cat, const char *id);
const cr_quant *cr_catalog_find_quant(const cr_catalog *cat, const char *id);
const cr_rig *cr_catalog_find_rig(const cr_catalog *cat, const char *id);

/** What cr_catalog_suggest searches. */
typedef enum cr_catalog_kind {
	CR_KIND_MODEL = 0,
	CR_KIND_QUANT,
	CR_KIND_RIG
} cr_catalog_kind;

/**
 * The catalog ids closest to @p name (edit distance, then shared prefix),
 * best first. Writes up to @p max pointers (owned by the catalog) to @p out.
 * @return how many were written.
 */
size_t cr_catalog_suggest(const cr_catalog *cat, cr_catalog_kind kind,
			  const char *name, const char **out, size_t max);

/**
 * The built-in catalog's version ("2026.11.30"): by default its date with
 * dots; a build may set another (CMake: -DCLEFRUN_CATALOG_VERSION=...).
 * Static storage.
 */
const char *cr_catalog_version(void);

/**
 * The date of the built-in catalog's data ("2026-11-30", ISO 8601): the last
 * commit that changed data/ when built from git, else the newest data file's
 * modification time (a `git archive` tarball keeps the commit's). Static
 * storage.
 */
const char *cr_catalog_date(void);

/**
 * SHA-256 of the built-in data files (models.json, quants.json, rigs.json,
 * concatenated in that order), 64 lower-case hex digits: tells two builds'
 * catalogs apart when their dates agree. Static storage.
 */
const char *cr_catalog_sha256(void);

/** Names of enums as the JSON files spell them ("cuda", "discrete", ...). */
const char *cr_backend_name(cr_backend b);
const char *cr_mem_kind_name(cr_mem_kind k);
/** "hbm", "gddr", "lpddr", "ddr" ("auto" for AUTO); "?" out of range. */
const char *cr_mem_type_name(cr_mem_type t);
/** "nvidia", "amd", "apple", "intel", "other" ("auto" for AUTO); "?" out of range. */
const char *cr_vendor_name(cr_vendor v);
/** Parse the names above (not "auto"). @return 0, or CR_ERR_INVALID. */
int cr_mem_type_parse(const char *s, cr_mem_type *out);
int cr_vendor_parse(const char *s, cr_vendor *out);
/** The device's memory type and vendor with AUTO resolved (see the enums). */
cr_mem_type cr_device_mem_type(const cr_device *d);
cr_vendor cr_device_vendor(const cr_device *d);

/** "generation", "embedding", "rerank" (the catalog's "task"); "?" out of range. */
const char *cr_model_task_name(cr_model_task t);
/** Parse a task name; 0 or CR_ERR_INVALID. */
int cr_model_task_parse(const char *s, cr_model_task *out);

/** Parse those names; return 0 or CR_ERR_INVALID. */
int cr_backend_parse(const char *s, cr_backend *out);
int cr_mem_kind_parse(const char *s, cr_mem_kind *out);

/** Number of layers of each kind, and of layers that keep a KV cache. */
unsigned cr_model_count_layers(const cr_model *m, cr_layer_kind kind);
unsigned cr_model_kv_layers(const cr_model *m);

#ifdef __cplusplus
}
#endif
#endif
