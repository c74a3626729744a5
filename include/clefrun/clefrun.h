/**
 * @file clefrun.h
 * @brief libclefrun: will this model run on this machine, with how much
 * context, and how fast?
 *
 * Umbrella header. Modules:
 *  - error.h    status codes and the caller-supplied error record
 *  - catalog.h  models, quantizations and rigs (JSON, validated)
 *  - rig.h      ad-hoc rigs from a "custom:" spec
 *  - estimate.h the pure estimator: memory, speed, fit tier, max context
 *  - vllm.h     the vLLM memory engine: KV cache left, blocks, concurrency
 *  - curve.h    memory against context, the series behind the report and charts
 *  - rank.h     the smallest rig that fits, from estimates
 *  - decide.h   best quant per model and rig; ranked "what fits" (fit)
 *  - prices.h   launch prices and cloud rents of rigs, dated and sourced
 *  - buy.h      the priced rigs that run a model, cheapest first (buy)
 *  - userrigs.h saved rigs in $XDG_CONFIG_HOME/clefrun/rigs.json
 *  - detect.h   this machine as a rig; memory-bandwidth probe
 *  - version.h  library version
 *  - source.h   byte sources: file, memory, HTTP(S) Range requests
 *  - gguf.h     the GGUF header reader and its mapping into a cr_model
 *  - safetensors.h the safetensors header reader: tensors, dtypes, exact bytes
 *  - hfconfig.h a Hugging Face config.json mapped into a cr_model
 *  - hf.h       Hugging Face names: hf: sources, URLs, file lists
 *  - ollama.h   Ollama names, store paths, registry URLs, manifests
 *  - local.h    the models on this machine (Ollama, HF hub cache, LM Studio, folders)
 *  - cache.h    the header cache of remote sources ($XDG_CACHE_HOME/clefrun)
 *  - st_source.h a safetensors checkpoint from a directory or hf:OWNER/REPO
 *  - text.h     text from strangers made safe to show (controls, invalid UTF-8)
 */
#ifndef CLEFRUN_H
#define CLEFRUN_H

#include "clefrun/error.h"
#include "clefrun/catalog.h"
#include "clefrun/rig.h"
#include "clefrun/estimate.h"
#include "clefrun/engine.h"
#include "clefrun/curve.h"
#include "clefrun/vllm.h"
#include "clefrun/plan.h"
#include "clefrun/rank.h"
#include "clefrun/file.h"
#include "clefrun/decide.h"
#include "clefrun/prices.h"
#include "clefrun/buy.h"
#include "clefrun/userrigs.h"
#include "clefrun/detect.h"
#include "clefrun/version.h"
#include "clefrun/source.h"
#include "clefrun/gguf.h"
#include "clefrun/safetensors.h"
#include "clefrun/hfconfig.h"
#include "clefrun/hf.h"
#include "clefrun/ollama.h"
#include "clefrun/cache.h"
#include "clefrun/model_source.h"
#include "clefrun/local.h"
#include "clefrun/st_source.h"
#include "clefrun/text.h"
#include "clefrun/vision.h"

#endif
