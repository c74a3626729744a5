/*
 * The memory-bandwidth probe behind "clefrun detect --measure-bandwidth"
 * (include/clefrun/detect.h). A STREAM-like read-only kernel: decode of a
 * bandwidth-bound LLM is a read of the weights, so reads are what matter.
 *
 * Design choices:
 * - each thread allocates and writes its own buffer first: on NUMA machines
 *   first touch places the pages on the thread's node, as llama.cpp's
 *   threads find them after loading;
 * - the buffers add up to much more than the last-level cache (the caller
 *   picks the size; 1 GiB by default), so passes read DRAM, not cache;
 * - one pass = all threads released together by a barrier, timed until the
 *   last one finishes; the median of many passes resists a noisy neighbour;
 * - own barrier (mutex + condition variable): macOS has no pthread_barrier.
 */
#include "clefrun/detect.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define PROBE_DEFAULT_BYTES (1ull << 30)
#define PROBE_MAX_THREADS 256
#define PROBE_MAX_PASSES 512

typedef struct barrier {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned total, arrived;
	unsigned long generation;
} barrier;

static void barrier_wait(barrier *b)
{
	pthread_mutex_lock(&b->mu);
	unsigned long gen = b->generation;

	if (++b->arrived >= b->total) {
		b->arrived = 0;
		b->generation++;
		pthread_cond_broadcast(&b->cv);
	} else {
		while (gen == b->generation)
			pthread_cond_wait(&b->cv, &b->mu);
	}
	pthread_mutex_unlock(&b->mu);
}

typedef struct shared {
	barrier start, end;
	volatile int stop;
} shared;

typedef struct worker {
	pthread_t tid;
	shared *sh;
	size_t words;       /* uint64_t words in the buffer */
	uint64_t *buf;
	int failed;         /* allocation failed */
	volatile uint64_t sink; /* keeps the reads from being optimised away */
} worker;

/* Read every word; eight independent sums keep several loads in flight
 * and let the compiler vectorise. */
static uint64_t read_pass(const uint64_t *p, size_t words)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
	size_t i = 0;

	for (; i + 8 <= words; i += 8) {
		s0 += p[i];
		s1 += p[i + 1];
		s2 += p[i + 2];
		s3 += p[i + 3];
		s4 += p[i + 4];
		s5 += p[i + 5];
		s6 += p[i + 6];
		s7 += p[i + 7];
	}
	for (; i < words; i++)
		s0 += p[i];
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}

static void *worker_main(void *arg)
{
	worker *w = arg;

	w->buf = malloc(w->words * sizeof(uint64_t));
	if (w->buf) {
		for (size_t i = 0; i < w->words; i++)
			w->buf[i] = i * 0x9E3779B97F4A7C15ull;
	} else {
		w->failed = 1;
	}
	for (;;) {
		barrier_wait(&w->sh->start);
		if (w->sh->stop)
			break;
		if (w->buf)
			w->sink += read_pass(w->buf, w->words);
		barrier_wait(&w->sh->end);
	}
	free(w->buf);
	w->buf = NULL;
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int cr_detect_measure_bandwidth(const cr_probe_opts *opts, cr_probe_result *out, cr_error *err)
{
	cr_probe_opts o = CR_PROBE_OPTS_INIT;
	double rates[PROBE_MAX_PASSES], t_begin;
	unsigned threads, started = 0, passes = 0;
	worker *ws;
	shared sh;
	size_t per, total;
	int rc = CR_OK, failed = 0;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "bandwidth probe: no result");
	memset(out, 0, sizeof(*out));
	if (opts)
		o = *opts;
	threads = o.threads;
	if (!threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		threads = n > 0 ? (unsigned)n : 1;
	}
	if (threads > PROBE_MAX_THREADS)
		threads = PROBE_MAX_THREADS;
	total = o.bytes ? o.bytes : (size_t)PROBE_DEFAULT_BYTES;
	if (o.min_passes < 1)
		o.min_passes = 1;
	if (o.min_passes > PROBE_MAX_PASSES)
		o.min_passes = PROBE_MAX_PASSES;
	if (!(o.seconds >= 0) || o.seconds > 600)
		return cr_seterr(err, CR_ERR_INVALID, "bandwidth probe: seconds must be 0 to 600");
	/* At least 1 MiB per thread, whole cache lines. */
	per = total / threads / 64 * 64;
	if (per < (1u << 20))
		per = 1u << 20;

	ws = calloc(threads, sizeof(*ws));
	if (!ws)
		return cr_seterr(err, CR_ERR_NOMEM, "bandwidth probe: out of memory");
	memset(&sh, 0, sizeof(sh));
	pthread_mutex_init(&sh.start.mu, NULL);
	pthread_cond_init(&sh.start.cv, NULL);
	pthread_mutex_init(&sh.end.mu, NULL);
	pthread_cond_init(&sh.end.cv, NULL);
	sh.start.total = sh.end.total = threads + 1;
	for (unsigned i = 0; i < threads; i++) {
		ws[i].sh = &sh;
		ws[i].words = per / sizeof(uint64_t);
		if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0)
			break;
		started++;
	}
	if (started < threads) {
		/* Go on with the threads that did start: no one has passed the
		 * first barrier yet (it needs this thread), so shrinking it is safe. */
		pthread_mutex_lock(&sh.start.mu);
		sh.start.total = started + 1;
		pthread_mutex_unlock(&sh.start.mu);
		pthread_mutex_lock(&sh.end.mu);
		sh.end.total = started + 1;
		pthread_mutex_unlock(&sh.end.mu);
	}
	if (!started) {
		rc = cr_seterr(err, CR_ERR_IO, "bandwidth probe: cannot start a thread");
		goto out;
	}

	/* Pass 0 warms up (and tells whether every buffer exists); then time
	 * passes until both min_passes and the time budget are used. */
	t_begin = now_s();
	for (unsigned pass = 0;; pass++) {
		double t0, t1;

		if (pass == 1) {
			for (unsigned i = 0; i < started; i++)
				failed |= ws[i].failed;
			t_begin = now_s();
		}
		if (failed || passes >= PROBE_MAX_PASSES ||
		    (passes >= o.min_passes && now_s() - t_begin >= o.seconds)) {
			sh.stop = 1;
			barrier_wait(&sh.start);
			break;
		}
		barrier_wait(&sh.start);
		t0 = now_s();
		barrier_wait(&sh.end);
		t1 = now_s();
		if (pass > 0 && t1 > t0)
			rates[passes++] = (double)per * started / (t1 - t0) / 1e9;
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(ws[i].tid, NULL);
	if (failed) {
		rc = cr_seterr(err, CR_ERR_NOMEM,
			       "bandwidth probe: cannot allocate %zu MiB per thread", per >> 20);
		goto out;
	}
	if (!passes) {
		rc = cr_seterr(err, CR_ERR_IO, "bandwidth probe: no pass could be timed");
		goto out;
	}
	qsort(rates, passes, sizeof(double), cmp_double);
	out->gbs = passes % 2 ? rates[passes / 2] : (rates[passes / 2 - 1] + rates[passes / 2]) / 2;
	out->min_gbs = rates[0];
	out->max_gbs = rates[passes - 1];
	out->passes = passes;
	out->threads = started;
	out->bytes = per * started;
	if (!isfinite(out->gbs) || out->gbs <= 0)
		rc = cr_seterr(err, CR_ERR_IO, "bandwidth probe: no usable measurement");
out:
	pthread_mutex_destroy(&sh.start.mu);
	pthread_cond_destroy(&sh.start.cv);
	pthread_mutex_destroy(&sh.end.mu);
	pthread_cond_destroy(&sh.end.cv);
	free(ws);
	return rc;
}
