/*
 * bench_check: median wall time of the work behind `clefrun check`, in
 * process: load the embedded catalog and estimate (a) one model on the 22
 * reference rigs at Q4_K_M, (b) every model x every rig x every quant.
 * Targets (issue "Foundation"): (a) <= 5 ms, (b) <= 50 ms on a 2-core VM.
 * Also prints the ratio (b)/(a), which is stable across machines.
 *
 * usage: bench_check [RUNS]   (default 21)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clefrun/clefrun.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One run; returns the number of estimates made, or -1 on error. */
static long run(int whole_matrix, double *sink)
{
	cr_catalog *cat = NULL;
	cr_error err;
	long n = 0;

	if (cr_catalog_load_embedded(&cat, &err)) {
		fprintf(stderr, "bench_check: %s\n", err.message);
		return -1;
	}
	for (size_t mi = 0; mi < cr_catalog_model_count(cat); mi++) {
		const cr_model *m = cr_catalog_model_at(cat, mi);

		if (!whole_matrix && strcmp(m->id, "clef-flash") != 0)
			continue;
		for (size_t ri = 0; ri < cr_catalog_rig_count(cat); ri++) {
			const cr_rig *r = cr_catalog_rig_at(cat, ri);

			if (!whole_matrix && !r->reference)
				continue;
			for (size_t qi = 0; qi < cr_catalog_quant_count(cat); qi++) {
				const cr_quant *q = cr_catalog_quant_at(cat, qi);
				cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
				cr_estimate e;

				if (!whole_matrix && strcmp(q->id, "Q4_K_M") != 0)
					continue;
				if (o.n_ctx > m->context_max)
					o.n_ctx = m->context_max;
				if (cr_estimate_run(m, q, r, &o, &e, &err)) {
					fprintf(stderr, "bench_check: %s\n", err.message);
					cr_catalog_free(cat);
					return -1;
				}
				*sink += e.decode_tokens_per_s;
				n++;
			}
		}
	}
	cr_catalog_free(cat);
	return n;
}

static double median_ms(int whole, int runs, long *count)
{
	double *t = malloc(sizeof(double) * (size_t)runs), sink = 0, med;

	if (!t)
		return -1;
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();

		*count = run(whole, &sink);
		t[i] = now_ms() - t0;
		if (*count < 0) {
			free(t);
			return -1;
		}
	}
	qsort(t, (size_t)runs, sizeof(double), cmp);
	med = t[runs / 2];
	free(t);
	return sink >= 0 ? med : -1;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 21;
	long n1 = 0, n2 = 0;
	double a, b;

	if (runs < 1)
		runs = 1;
	a = median_ms(0, runs, &n1);
	b = median_ms(1, runs, &n2);
	if (a < 0 || b < 0)
		return 1;
	printf("check clef-flash x 22 reference rigs (%ld estimates): median %.3f ms (target <= 5 ms)\n",
	       n1, a);
	printf("check whole catalog matrix (%ld estimates): median %.3f ms (target <= 50 ms)\n", n2, b);
	printf("ratio matrix / one model: %.1f; per estimate: %.2f us\n", b / a, b * 1e3 / (double)n2);
	return 0;
}
