/*
 * Ad-hoc rigs: "custom:mem_gb=24,bw_gbs=1008[,devices=2][,tflops=165]
 * [,backend=...][,kind=...]" (grammar in include/clefrun/rig.h).
 */
#include "clefrun/rig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "util.h"

#define SPEC_MAX 256

static int parse_number(const char *spec, const char *key, const char *val, double lo,
			double hi, double *out, cr_error *err)
{
	char *end = NULL;
	double d;

	if (!*val)
		return cr_seterr(err, CR_ERR_INVALID, "rig spec \"%s\": %s: empty value", spec, key);
	/* Plain decimal only: strtod would also take hex, inf and nan. */
	if (strspn(val, "0123456789.eE+-") != strlen(val))
		return cr_seterr(err, CR_ERR_INVALID, "rig spec \"%s\": %s: \"%s\" is not a number",
				 spec, key, val);
	errno = 0;
	d = strtod(val, &end);
	if (errno || end == val || *end || !isfinite(d))
		return cr_seterr(err, CR_ERR_INVALID, "rig spec \"%s\": %s: \"%s\" is not a number",
				 spec, key, val);
	if (d < lo || d > hi)
		return cr_seterr(err, CR_ERR_INVALID,
				 "rig spec \"%s\": %s: %g is out of range (%g to %g)", spec, key, d,
				 lo, hi);
	*out = d;
	return CR_OK;
}

int cr_rig_parse_spec(const char *spec, cr_rig *out, cr_error *err)
{
	const size_t plen = strlen(CR_RIG_SPEC_PREFIX);
	char buf[SPEC_MAX];
	double mem = 0, bw = 0, devices = 1, tflops = 0, ram = 0, ram_bw = 0, usable = 0;
	bool have_backend = false, have_kind = false;
	cr_device *d = &out->devices[0];
	char *p;

	memset(out, 0, sizeof(*out));
	if (strncmp(spec, CR_RIG_SPEC_PREFIX, plen) != 0)
		return cr_seterr(err, CR_ERR_PARSE, "rig spec \"%s\": must start with \"%s\"", spec,
				 CR_RIG_SPEC_PREFIX);
	if (strlen(spec) >= SPEC_MAX)
		return cr_seterr(err, CR_ERR_PARSE, "rig spec too long (at most %d bytes)",
				 SPEC_MAX - 1);
	cr_strlcpy(buf, spec + plen, sizeof(buf));
	d->backend = CR_BACKEND_CUDA;
	d->kind = CR_MEM_DISCRETE;

	p = buf;
	while (*p) {
		char *comma = strchr(p, ',');
		char *eq;
		int rc = CR_OK;

		if (comma)
			*comma = '\0';
		eq = strchr(p, '=');
		if (!eq)
			return cr_seterr(err, CR_ERR_PARSE,
					 "rig spec \"%s\": \"%s\" is not key=value", spec, p);
		*eq = '\0';
		/* The pairs before p are "key\0value\0": compare the keys only. */
		for (const char *q = buf; q < p; q += strlen(q) + 1, q += strlen(q) + 1) {
			if (strcmp(q, p) == 0)
				return cr_seterr(err, CR_ERR_INVALID,
						 "rig spec \"%s\": %s given twice", spec, p);
		}
		if (strcmp(p, "mem_gb") == 0) {
			rc = parse_number(spec, p, eq + 1, 0.001, 65536, &mem, err);
		} else if (strcmp(p, "bw_gbs") == 0) {
			rc = parse_number(spec, p, eq + 1, 0.001, 1e6, &bw, err);
		} else if (strcmp(p, "devices") == 0) {
			rc = parse_number(spec, p, eq + 1, 1, 64, &devices, err);
			if (!rc && devices != floor(devices))
				rc = cr_seterr(err, CR_ERR_INVALID,
					       "rig spec \"%s\": devices: expected a whole number",
					       spec);
		} else if (strcmp(p, "tflops") == 0) {
			rc = parse_number(spec, p, eq + 1, 0, 1e6, &tflops, err);
		} else if (strcmp(p, "usable_gb") == 0) {
			rc = parse_number(spec, p, eq + 1, 0.001, 65536, &usable, err);
		} else if (strcmp(p, "ram_gb") == 0) {
			rc = parse_number(spec, p, eq + 1, 0.001, 65536, &ram, err);
		} else if (strcmp(p, "ram_bw_gbs") == 0) {
			rc = parse_number(spec, p, eq + 1, 0.001, 1e5, &ram_bw, err);
		} else if (strcmp(p, "backend") == 0) {
			if (cr_backend_parse(eq + 1, &d->backend))
				rc = cr_seterr(err, CR_ERR_INVALID,
					       "rig spec \"%s\": backend: expected cuda, metal, rocm, vulkan or cpu, got \"%s\"",
					       spec, eq + 1);
			have_backend = true;
		} else if (strcmp(p, "kind") == 0) {
			if (cr_mem_kind_parse(eq + 1, &d->kind))
				rc = cr_seterr(err, CR_ERR_INVALID,
					       "rig spec \"%s\": kind: expected discrete, unified or system, got \"%s\"",
					       spec, eq + 1);
			have_kind = true;
		} else {
			rc = cr_seterr(err, CR_ERR_INVALID,
				       "rig spec \"%s\": unknown key \"%s\" (expected mem_gb, bw_gbs, devices, tflops, backend, kind, usable_gb, ram_gb, ram_bw_gbs)",
				       spec, p);
		}
		if (rc)
			return rc;
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return cr_seterr(err, CR_ERR_PARSE, "rig spec \"%s\": trailing comma", spec);
	}
	if (mem <= 0)
		return cr_seterr(err, CR_ERR_INVALID, "rig spec \"%s\": mem_gb is required", spec);
	if (bw <= 0)
		return cr_seterr(err, CR_ERR_INVALID, "rig spec \"%s\": bw_gbs is required", spec);
	if (!have_kind && have_backend) {
		if (d->backend == CR_BACKEND_CPU)
			d->kind = CR_MEM_SYSTEM;
		else if (d->backend == CR_BACKEND_METAL)
			d->kind = CR_MEM_UNIFIED;
	}
	if (d->kind == CR_MEM_SYSTEM && have_backend && d->backend != CR_BACKEND_CPU)
		return cr_seterr(err, CR_ERR_INVALID,
				 "rig spec \"%s\": kind=system needs backend=cpu", spec);
	if (d->kind == CR_MEM_SYSTEM)
		d->backend = CR_BACKEND_CPU;
	if ((ram > 0) != (ram_bw > 0))
		return cr_seterr(err, CR_ERR_INVALID,
				 "rig spec \"%s\": ram_gb and ram_bw_gbs go together", spec);
	if (ram > 0 && d->kind == CR_MEM_SYSTEM)
		return cr_seterr(err, CR_ERR_INVALID,
				 "rig spec \"%s\": ram_gb adds system RAM to GPUs; this rig is system RAM already", spec);

	cr_strlcpy(out->id, spec, sizeof(out->id));
	snprintf(out->name, sizeof(out->name), "Custom %gx %g GiB %s, %g GB/s",
		 devices, mem, cr_mem_kind_name(d->kind), bw);
	cr_strlcpy(d->name, "custom device", sizeof(d->name));
	d->count = (uint32_t)devices;
	d->memory_gib = mem;
	d->bandwidth_gbs = bw;
	d->fp16_tflops = tflops;
	d->usable_fraction = cr_default_usable_fraction(d);
	/* The platform's limit as this machine has it (a raised
	 * iogpu.wired_limit_mb, a larger GTT): memory of one device. */
	if (usable > 0) {
		if (usable > mem)
			return cr_seterr(err, CR_ERR_INVALID,
					 "rig spec \"%s\": usable_gb %g is more than mem_gb %g", spec, usable,
					 mem);
		if (usable < 0.01 * mem)
			return cr_seterr(err, CR_ERR_INVALID,
					 "rig spec \"%s\": usable_gb %g is under 1%% of mem_gb %g", spec, usable,
					 mem);
		d->usable_fraction = usable / mem;
	}
	out->n_devices = 1;
	if (ram > 0) {
		cr_device *s = &out->devices[1];

		cr_strlcpy(s->name, "system RAM", sizeof(s->name));
		s->count = 1;
		s->memory_gib = ram;
		s->bandwidth_gbs = ram_bw;
		s->backend = CR_BACKEND_CPU;
		s->kind = CR_MEM_SYSTEM;
		s->usable_fraction = cr_default_usable_fraction(s);
		out->n_devices = 2;
	}
	cr_strlcpy(out->sources[0], "command line", sizeof(out->sources[0]));
	out->n_sources = 1;
	return CR_OK;
}

uint64_t cr_rig_memory_bytes(const cr_rig *rig)
{
	double total = 0;

	for (unsigned i = 0; i < rig->n_devices; i++)
		total += rig->devices[i].count * rig->devices[i].memory_gib * 1073741824.0;
	return (uint64_t)total;
}

/* Mirrors src/lib/estimate.c (acc_time for the layer split; the RAM read
 * of decode() at the first system group's bandwidth); keep them in step. */
void cr_rig_tier_bandwidth_gbs(const cr_rig *rig, double *accel_gbs, double *ram_gbs)
{
	double usable = 0, inv = 0, ram = 0;

	for (unsigned i = 0; i < rig->n_devices; i++) {
		const cr_device *d = &rig->devices[i];

		if (d->kind == CR_MEM_SYSTEM) {
			if (ram == 0)
				ram = d->bandwidth_gbs;
			continue;
		}
		usable += d->count * d->memory_gib * d->usable_fraction;
	}
	for (unsigned i = 0; i < rig->n_devices && usable > 0; i++) {
		const cr_device *d = &rig->devices[i];

		if (d->kind != CR_MEM_SYSTEM && d->bandwidth_gbs > 0)
			inv += d->count * d->memory_gib * d->usable_fraction / usable / d->bandwidth_gbs;
	}
	if (accel_gbs)
		*accel_gbs = inv > 0 ? 1.0 / inv : 0;
	if (ram_gbs)
		*ram_gbs = ram;
}

double cr_rig_aggregate_bandwidth_gbs(const cr_rig *rig)
{
	double total = 0;

	for (unsigned i = 0; i < rig->n_devices; i++)
		total += rig->devices[i].count * rig->devices[i].bandwidth_gbs;
	return total;
}
