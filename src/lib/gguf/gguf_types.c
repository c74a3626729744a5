/*
 * The GGUF tables, the lowest layer of the GGUF code: value type names,
 * little-endian loads, ggml tensor types (block layout, names, removed ids)
 * and llama.cpp file types. Nothing here knows a parsed file; the reader
 * (gguf.c), the getters (gguf_meta.c) and the model mapping (gguf_model.c)
 * build on it, never the other way (gguf_types.h).
 */
#include <stdint.h>

#include "gguf_types.h"

/* ---- value types -------------------------------------------------------- */

static const char *const type_names[CR_GGUF_TYPE_COUNT] = {
	"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
	"string", "array", "uint64", "int64", "float64"
};

const char *cr_gguf_type_name(cr_gguf_type t)
{
	return (unsigned)t < CR_GGUF_TYPE_COUNT ? type_names[t] : "?";
}

/* ---- little-endian loads ------------------------------------------------ */

uint16_t gg_ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

uint32_t gg_ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

uint64_t gg_ld64(const uint8_t *p)
{
	return (uint64_t)gg_ld32(p) | ((uint64_t)gg_ld32(p + 4) << 32);
}

/* ---- ggml types -------------------------------------------------------- */

/* Elements and bytes per block of each ggml type id (ggml/src/ggml.c
 * type_traits; the same figures as gguf-py GGML_QUANT_SIZES and
 * shared/facts/quants.csv). One exception to the CSV: Q8_1 is 36 bytes
 * (two fp16 + 32 int8, ggml-common.h static_assert); constants.py still has
 * the old 40 of two floats. Q8_1 never appears in model files. Ids 4, 5,
 * 31-33 and 36-38 were removed from ggml (their block sizes are 0). */
static const struct {
	const char *name;
	uint32_t block, bytes;
} ggml_types[CR_GGML_TYPE_COUNT] = {
	[0] = { "F32", 1, 4 },         [1] = { "F16", 1, 2 },
	[2] = { "Q4_0", 32, 18 },      [3] = { "Q4_1", 32, 20 },
	[6] = { "Q5_0", 32, 22 },      [7] = { "Q5_1", 32, 24 },
	[8] = { "Q8_0", 32, 34 },      [9] = { "Q8_1", 32, 36 },
	[10] = { "Q2_K", 256, 84 },    [11] = { "Q3_K", 256, 110 },
	[12] = { "Q4_K", 256, 144 },   [13] = { "Q5_K", 256, 176 },
	[14] = { "Q6_K", 256, 210 },   [15] = { "Q8_K", 256, 292 },
	[16] = { "IQ2_XXS", 256, 66 }, [17] = { "IQ2_XS", 256, 74 },
	[18] = { "IQ3_XXS", 256, 98 }, [19] = { "IQ1_S", 256, 50 },
	[20] = { "IQ4_NL", 32, 18 },   [21] = { "IQ3_S", 256, 110 },
	[22] = { "IQ2_S", 256, 82 },   [23] = { "IQ4_XS", 256, 136 },
	[24] = { "I8", 1, 1 },         [25] = { "I16", 1, 2 },
	[26] = { "I32", 1, 4 },        [27] = { "I64", 1, 8 },
	[28] = { "F64", 1, 8 },        [29] = { "IQ1_M", 256, 56 },
	[30] = { "BF16", 1, 2 },       [34] = { "TQ1_0", 256, 54 },
	[35] = { "TQ2_0", 256, 66 },   [39] = { "MXFP4", 32, 17 },
	[40] = { "NVFP4", 64, 36 },    [41] = { "Q1_0", 128, 18 },
};

int cr_ggml_type_size(uint32_t type, uint32_t *block, uint32_t *bytes)
{
	if (type >= CR_GGML_TYPE_COUNT || !ggml_types[type].block)
		return CR_ERR_INVALID;
	*block = ggml_types[type].block;
	*bytes = ggml_types[type].bytes;
	return CR_OK;
}

const char *cr_ggml_type_name(uint32_t type)
{
	return type < CR_GGML_TYPE_COUNT ? ggml_types[type].name : NULL;
}

const char *gg_removed_type(uint32_t type)
{
	switch (type) {
	case 4: return "Q4_2";
	case 5: return "Q4_3";
	case 31: return "Q4_0_4_4";
	case 32: return "Q4_0_4_8";
	case 33: return "Q4_0_8_8";
	case 36: return "IQ4_NL_4_4";
	case 37: return "IQ4_NL_4_8";
	case 38: return "IQ4_NL_8_8";
	default: return NULL;
	}
}

/* llama.cpp's enum llama_ftype (include/llama.h), by the names
 * llama-quantize uses. */
const char *cr_gguf_file_type_name(uint32_t ft)
{
	static const char *const names[] = {
		[0] = "F32", [1] = "F16", [2] = "Q4_0", [3] = "Q4_1", [7] = "Q8_0",
		[8] = "Q5_0", [9] = "Q5_1", [10] = "Q2_K", [11] = "Q3_K_S", [12] = "Q3_K_M",
		[13] = "Q3_K_L", [14] = "Q4_K_S", [15] = "Q4_K_M", [16] = "Q5_K_S",
		[17] = "Q5_K_M", [18] = "Q6_K", [19] = "IQ2_XXS", [20] = "IQ2_XS",
		[21] = "Q2_K_S", [22] = "IQ3_XS", [23] = "IQ3_XXS", [24] = "IQ1_S",
		[25] = "IQ4_NL", [26] = "IQ3_S", [27] = "IQ3_M", [28] = "IQ2_S",
		[29] = "IQ2_M", [30] = "IQ4_XS", [31] = "IQ1_M", [32] = "BF16",
		[36] = "TQ1_0", [37] = "TQ2_0", [38] = "MXFP4_MOE", [39] = "NVFP4",
		[40] = "Q1_0",
	};

	return ft < sizeof(names) / sizeof(names[0]) ? names[ft] : NULL;
}
