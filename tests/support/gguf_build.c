#include "gguf_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gb_init(gb *b)
{
	memset(b, 0, sizeof(*b));
}

void gb_free(gb *b)
{
	free(b->p);
	gb_init(b);
}

void gb_bytes(gb *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

void gb_u8(gb *b, uint8_t v)
{
	gb_bytes(b, &v, 1);
}

void gb_u16(gb *b, uint16_t v)
{
	unsigned char x[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	gb_bytes(b, x, 2);
}

void gb_u32(gb *b, uint32_t v)
{
	unsigned char x[4];

	for (int i = 0; i < 4; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	gb_bytes(b, x, 4);
}

void gb_u64(gb *b, uint64_t v)
{
	gb_u32(b, (uint32_t)v);
	gb_u32(b, (uint32_t)(v >> 32));
}

void gb_f32(gb *b, float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	gb_u32(b, u);
}

void gb_str(gb *b, const char *s)
{
	gb_u64(b, strlen(s));
	gb_bytes(b, s, strlen(s));
}

void gb_header(gb *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv)
{
	gb_bytes(b, "GGUF", 4);
	gb_u32(b, version);
	gb_u64(b, n_tensors);
	gb_u64(b, n_kv);
}

void gb_kv_u32(gb *b, const char *key, uint32_t v)
{
	gb_str(b, key);
	gb_u32(b, 4);
	gb_u32(b, v);
}

void gb_kv_u64(gb *b, const char *key, uint64_t v)
{
	gb_str(b, key);
	gb_u32(b, 10);
	gb_u64(b, v);
}

void gb_kv_str(gb *b, const char *key, const char *v)
{
	gb_str(b, key);
	gb_u32(b, 8);
	gb_str(b, v);
}

void gb_kv_f32(gb *b, const char *key, float v)
{
	gb_str(b, key);
	gb_u32(b, 6);
	gb_f32(b, v);
}

void gb_kv_bool(gb *b, const char *key, int v)
{
	gb_str(b, key);
	gb_u32(b, 7);
	gb_u8(b, v ? 1 : 0);
}

void gb_kv_arr(gb *b, const char *key, uint32_t elem_type, uint64_t n)
{
	gb_str(b, key);
	gb_u32(b, 9);
	gb_u32(b, elem_type);
	gb_u64(b, n);
}

void gb_kv_arr_u32(gb *b, const char *key, const uint32_t *v, size_t n)
{
	gb_kv_arr(b, key, 4, n);
	for (size_t i = 0; i < n; i++)
		gb_u32(b, v[i]);
}

void gb_tensor(gb *b, const char *name, uint32_t n_dims, const uint64_t *dims, uint32_t type,
	       uint64_t offset)
{
	gb_str(b, name);
	gb_u32(b, n_dims);
	for (uint32_t i = 0; i < n_dims; i++)
		gb_u64(b, dims[i]);
	gb_u32(b, type);
	gb_u64(b, offset);
}

void gb_pad(gb *b, size_t align)
{
	while (align && b->len % align)
		gb_u8(b, 0);
}

void gb_zeros(gb *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gb_u8(b, 0);
}

void gb_put32(gb *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->p[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

void gb_put64(gb *b, size_t off, uint64_t v)
{
	gb_put32(b, off, (uint32_t)v);
	gb_put32(b, off + 4, (uint32_t)(v >> 32));
}

void gb_tiny_llama(gb *b, uint32_t version, size_t *offsets)
{
	/* 2 layers × 9 tensors + token_embd, output_norm, output = 21 tensors. */
	static const char *const names[] = { "attn_norm", "attn_q", "attn_k", "attn_v",
		"attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down" };
	const uint64_t H = 64, F = 128, V = 300, KV = 32;
	uint64_t shapes[9][2] = { { H, 1 }, { H, H }, { H, KV }, { H, KV }, { H, H },
				  { H, 1 }, { H, F }, { H, F }, { F, H } };
	uint64_t off = 0, sizes[21];
	size_t k = 0;

	gb_header(b, version, 21, 9);
	gb_kv_str(b, "general.architecture", "llama");
	gb_kv_str(b, "general.name", "tiny");
	gb_kv_u32(b, "llama.context_length", 2048);
	gb_kv_u32(b, "llama.embedding_length", (uint32_t)H);
	gb_kv_u32(b, "llama.block_count", 2);
	gb_kv_u32(b, "llama.feed_forward_length", (uint32_t)F);
	gb_kv_u32(b, "llama.attention.head_count", 4);
	gb_kv_u32(b, "llama.attention.head_count_kv", 2);
	gb_kv_u32(b, "llama.vocab_size", (uint32_t)V);
	{
		uint64_t d[2] = { H, V };

		if (offsets)
			offsets[k] = b->len;
		gb_tensor(b, "token_embd.weight", 2, d, 1, off);
		sizes[k++] = H * V * 2;
		off += H * V * 2;
	}
	{
		uint64_t d[1] = { H };

		if (offsets)
			offsets[k] = b->len;
		gb_tensor(b, "output_norm.weight", 1, d, 0, off);
		sizes[k++] = H * 4;
		off += H * 4;
	}
	{
		uint64_t d[2] = { H, V };

		if (offsets)
			offsets[k] = b->len;
		gb_tensor(b, "output.weight", 2, d, 1, off);
		sizes[k++] = H * V * 2;
		off += H * V * 2;
	}
	for (int l = 0; l < 2; l++) {
		for (int t = 0; t < 9; t++) {
			char name[64];
			int vec = shapes[t][1] == 1;
			uint64_t bytes = vec ? H * 4 : shapes[t][0] * shapes[t][1] * 2;

			snprintf(name, sizeof(name), "blk.%d.%s.weight", l, names[t]);
			if (offsets)
				offsets[k] = b->len;
			gb_tensor(b, name, vec ? 1 : 2, shapes[t], vec ? 0 : 1, off);
			sizes[k++] = bytes;
			off += (bytes + 31) / 32 * 32;
		}
	}
	gb_pad(b, 32);
	(void)sizes;
	gb_zeros(b, (size_t)off);
}
