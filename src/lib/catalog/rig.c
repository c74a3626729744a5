/*
 * Ad-hoc rigs: "custom:mem_gb=24,bw_gbs=1008[,devices=2][,tflops=165]
 * [,backend=...][,kind=...]" (grammar in include/clefrun/rig.h).
 */
#include "clefrun/rig.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "rig_internal.h"
#include "util.h"

#define SPEC_MAX 256

/* "PLACE: " + the message, or the message alone. */
static int fail(cr_error *err, const char *place, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(cr_error *err, const char *place, const char *fmt, ...)
{
	char msg[CR_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (place)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s", place, msg);
	return cr_seterr(err, CR_ERR_INVALID, "%s", msg);
}

int cr_rig_check_range(const char *place, const char *key, double v, double lo, double hi,
		       cr_error *err)
{
	if (!isfinite(v) || v < lo || v > hi)
		return fail(err, place, "%s: %g is out of range (%g to %g)", key, v, lo, hi);
	return CR_OK;
}

int cr_rig_from_figures(const cr_rig_figures *f, const char *place, cr_rig *out, cr_error *err)
{
	cr_device *d = &out->devices[0];
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(f->mem_gib > 0))
		return fail(err, place, "mem_gb is required");
	if (!(f->bw_gbs > 0))
		return fail(err, place, "bw_gbs is required");
	if ((rc = cr_rig_check_range(place, "mem_gb", f->mem_gib, CR_RIG_MEMORY_GIB_MIN,
				     CR_RIG_MEMORY_GIB_MAX, err)) ||
	    (rc = cr_rig_check_range(place, "bw_gbs", f->bw_gbs, CR_RIG_BANDWIDTH_GBS_MIN,
				     CR_RIG_BANDWIDTH_GBS_MAX, err)) ||
	    (rc = cr_rig_check_range(place, "devices", f->devices, 1, CR_RIG_DEVICES_MAX, err)) ||
	    (rc = cr_rig_check_range(place, "tflops", f->tflops, 0, CR_RIG_TFLOPS_MAX, err)))
		return rc;
	if (f->usable_gib != 0 &&
	    (rc = cr_rig_check_range(place, "usable_gb", f->usable_gib, CR_RIG_MEMORY_GIB_MIN,
				     CR_RIG_MEMORY_GIB_MAX, err)))
		return rc;
	d->backend = f->backend_set ? f->backend : CR_BACKEND_CUDA;
	d->kind = f->kind_set ? f->kind : CR_MEM_DISCRETE;
	if (!f->kind_set && f->backend_set) {
		if (f->backend == CR_BACKEND_CPU)
			d->kind = CR_MEM_SYSTEM;
		else if (f->backend == CR_BACKEND_METAL)
			d->kind = CR_MEM_UNIFIED;
	}
	if (d->kind == CR_MEM_SYSTEM && f->backend_set && f->backend != CR_BACKEND_CPU)
		return fail(err, place, "kind=system needs backend=cpu");
	if (d->kind == CR_MEM_SYSTEM)
		d->backend = CR_BACKEND_CPU;
	if ((f->ram_gib > 0) != (f->ram_bw_gbs > 0))
		return fail(err, place, "ram_gb and ram_bw_gbs go together");
	if (f->ram_gib > 0) {
		if (d->kind == CR_MEM_SYSTEM)
			return fail(err, place,
				    "ram_gb adds system RAM to GPUs; this rig is system RAM already");
		if ((rc = cr_rig_check_range(place, "ram_gb", f->ram_gib, CR_RIG_MEMORY_GIB_MIN,
					     CR_RIG_MEMORY_GIB_MAX, err)) ||
		    (rc = cr_rig_check_range(place, "ram_bw_gbs", f->ram_bw_gbs,
					     CR_RIG_BANDWIDTH_GBS_MIN, CR_RIG_BANDWIDTH_GBS_MAX, err)))
			return rc;
	}

	d->count = f->devices;
	d->memory_gib = f->mem_gib;
	d->bandwidth_gbs = f->bw_gbs;
	d->fp16_tflops = f->tflops;
	d->usable_fraction = cr_default_usable_fraction(d);
	/* The platform's limit as this machine has it (a raised
	 * iogpu.wired_limit_mb, a larger GTT): memory of one device. */
	if (f->usable_gib > 0) {
		if (f->usable_gib > f->mem_gib)
			return fail(err, place, "usable_gb %g is more than mem_gb %g", f->usable_gib,
				    f->mem_gib);
		if (f->usable_gib < CR_RIG_USABLE_FRACTION_MIN * f->mem_gib)
			return fail(err, place, "usable_gb %g is under 1%% of mem_gb %g",
				    f->usable_gib, f->mem_gib);
		d->usable_fraction = f->usable_gib / f->mem_gib;
	}
	out->n_devices = 1;
	if (f->ram_gib > 0) {
		cr_device *s = &out->devices[1];

		s->count = 1;
		s->memory_gib = f->ram_gib;
		s->bandwidth_gbs = f->ram_bw_gbs;
		s->backend = CR_BACKEND_CPU;
		s->kind = CR_MEM_SYSTEM;
		s->usable_fraction = cr_default_usable_fraction(s);
		out->n_devices = 2;
	}
	return CR_OK;
}

/* Syntax of a spec's number, then its bounds (checked here too, so that
 * the first bad key of the text is the one reported). */
static int parse_number(const char *place, const char *key, const char *val, double lo,
			double hi, double *out, cr_error *err)
{
	char *end = NULL;
	double d;

	if (!*val)
		return fail(err, place, "%s: empty value", key);
	/* Plain decimal only: strtod would also take hex, inf and nan. */
	if (strspn(val, "0123456789.eE+-") != strlen(val))
		return fail(err, place, "%s: \"%s\" is not a number", key, val);
	errno = 0;
	d = strtod(val, &end);
	if (errno || end == val || *end || !isfinite(d))
		return fail(err, place, "%s: \"%s\" is not a number", key, val);
	if (cr_rig_check_range(place, key, d, lo, hi, err))
		return CR_ERR_INVALID;
	*out = d;
	return CR_OK;
}

int cr_rig_parse_spec(const char *spec, cr_rig *out, cr_error *err)
{
	const size_t plen = strlen(CR_RIG_SPEC_PREFIX);
	cr_rig_figures f = CR_RIG_FIGURES_INIT;
	char buf[SPEC_MAX], place[SPEC_MAX + 16];
	double devices = 1;
	char *p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (strncmp(spec, CR_RIG_SPEC_PREFIX, plen) != 0)
		return cr_seterr(err, CR_ERR_PARSE, "rig spec \"%s\": must start with \"%s\"", spec,
				 CR_RIG_SPEC_PREFIX);
	if (strlen(spec) >= SPEC_MAX)
		return cr_seterr(err, CR_ERR_PARSE, "rig spec too long (at most %d bytes)",
				 SPEC_MAX - 1);
	snprintf(place, sizeof(place), "rig spec \"%s\"", spec);
	cr_strlcpy(buf, spec + plen, sizeof(buf));

	p = buf;
	while (*p) {
		char *comma = strchr(p, ',');
		char *eq;

		rc = CR_OK;
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
			rc = parse_number(place, p, eq + 1, CR_RIG_MEMORY_GIB_MIN,
					  CR_RIG_MEMORY_GIB_MAX, &f.mem_gib, err);
		} else if (strcmp(p, "bw_gbs") == 0) {
			rc = parse_number(place, p, eq + 1, CR_RIG_BANDWIDTH_GBS_MIN,
					  CR_RIG_BANDWIDTH_GBS_MAX, &f.bw_gbs, err);
		} else if (strcmp(p, "devices") == 0) {
			rc = parse_number(place, p, eq + 1, 1, CR_RIG_DEVICES_MAX, &devices, err);
			if (!rc && devices != floor(devices))
				rc = fail(err, place, "devices: expected a whole number");
		} else if (strcmp(p, "tflops") == 0) {
			rc = parse_number(place, p, eq + 1, 0, CR_RIG_TFLOPS_MAX, &f.tflops, err);
		} else if (strcmp(p, "usable_gb") == 0) {
			rc = parse_number(place, p, eq + 1, CR_RIG_MEMORY_GIB_MIN,
					  CR_RIG_MEMORY_GIB_MAX, &f.usable_gib, err);
		} else if (strcmp(p, "ram_gb") == 0) {
			rc = parse_number(place, p, eq + 1, CR_RIG_MEMORY_GIB_MIN,
					  CR_RIG_MEMORY_GIB_MAX, &f.ram_gib, err);
		} else if (strcmp(p, "ram_bw_gbs") == 0) {
			rc = parse_number(place, p, eq + 1, CR_RIG_BANDWIDTH_GBS_MIN,
					  CR_RIG_BANDWIDTH_GBS_MAX, &f.ram_bw_gbs, err);
		} else if (strcmp(p, "backend") == 0) {
			if (cr_backend_parse(eq + 1, &f.backend))
				rc = fail(err, place,
					  "backend: expected cuda, metal, rocm, vulkan or cpu, got \"%s\"",
					  eq + 1);
			f.backend_set = true;
		} else if (strcmp(p, "kind") == 0) {
			if (cr_mem_kind_parse(eq + 1, &f.kind))
				rc = fail(err, place,
					  "kind: expected discrete, unified or system, got \"%s\"", eq + 1);
			f.kind_set = true;
		} else {
			rc = fail(err, place,
				  "unknown key \"%s\" (expected mem_gb, bw_gbs, devices, tflops, backend, kind, usable_gb, ram_gb, ram_bw_gbs)",
				  p);
		}
		if (rc)
			return rc;
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return cr_seterr(err, CR_ERR_PARSE, "rig spec \"%s\": trailing comma", spec);
	}
	f.devices = (uint32_t)devices;
	if ((rc = cr_rig_from_figures(&f, place, out, err)))
		return rc;

	cr_strlcpy(out->id, spec, sizeof(out->id));
	snprintf(out->name, sizeof(out->name), "Custom %gx %g GiB %s, %g GB/s",
		 devices, f.mem_gib, cr_mem_kind_name(out->devices[0].kind), f.bw_gbs);
	cr_strlcpy(out->devices[0].name, "custom device", sizeof(out->devices[0].name));
	if (out->n_devices > 1)
		cr_strlcpy(out->devices[1].name, "system RAM", sizeof(out->devices[1].name));
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

/* Mirrors src/lib/estimate/estimate.c (acc_time for the layer split; the RAM read
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
