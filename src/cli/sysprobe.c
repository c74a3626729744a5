/*
 * The part of detection that runs programs: nvidia-smi and, on macOS,
 * sysctl. The library's cr_detect_run reads files only and takes these
 * programs' output as strings, so that it stays testable with fixture trees;
 * running them lives here, in the CLI.
 *
 * Programs are started with fork + exec (no shell, so a --root path with
 * spaces or quotes is passed as it is), stdout captured, stderr discarded,
 * and killed after CLI_CAPTURE_TIMEOUT_S: a wedged driver must not hang
 * clefrun.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CLI_CAPTURE_TIMEOUT_S 10

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_capture(const char *file, char *const argv[], bool search_path, char *buf, size_t cap,
		char *why, size_t why_cap)
{
	int out[2], errp[2], status = 0, child_errno = 0;
	size_t n = 0;
	double deadline;
	pid_t pid;
	bool timed_out = false;

	buf[0] = '\0';
	if (pipe(out) != 0) {
		snprintf(why, why_cap, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe(errp) != 0) {
		snprintf(why, why_cap, "pipe: %s", strerror(errno));
		close(out[0]);
		close(out[1]);
		return -1;
	}
	/* The exec-error pipe closes on a successful exec: a read of 0 bytes
	 * means the program started, 4 bytes carry the exec errno. */
	fcntl(errp[1], F_SETFD, FD_CLOEXEC);
	pid = fork();
	if (pid < 0) {
		snprintf(why, why_cap, "fork: %s", strerror(errno));
		close(out[0]);
		close(out[1]);
		close(errp[0]);
		close(errp[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		int e;

		close(out[0]);
		close(errp[0]);
		dup2(out[1], STDOUT_FILENO);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		if (search_path)
			execvp(file, argv);
		else
			execv(file, argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(out[1]);
	close(errp[1]);
	if (read(errp[0], &child_errno, sizeof(child_errno)) != (ssize_t)sizeof(child_errno))
		child_errno = 0;
	close(errp[0]);

	deadline = mono_s() + CLI_CAPTURE_TIMEOUT_S;
	for (;;) {
		struct pollfd p = { out[0], POLLIN, 0 };
		double left = deadline - mono_s();
		char sink[512];
		ssize_t r;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!p.revents)
			continue;
		/* Past cap, keep draining so the child never blocks on a full pipe. */
		if (n + 1 < cap)
			r = read(out[0], buf + n, cap - 1 - n);
		else
			r = read(out[0], sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < cap)
			n += (size_t)r;
	}
	buf[n] = '\0';
	close(out[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (child_errno) {
		snprintf(why, why_cap, "%s: %s", file, strerror(child_errno));
		return -1;
	}
	if (timed_out) {
		snprintf(why, why_cap, "%s: no answer within %d s; killed", file,
			 CLI_CAPTURE_TIMEOUT_S);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, why_cap, "%s: exited with status %d", file,
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -1;
	}
	return 0;
}

/* An executable DIR/bin/NAME under the fixture root, into path. */
static bool root_tool(const char *root, const char *name, char *path, size_t cap)
{
	struct stat st;
	int n = snprintf(path, cap, "%s/bin/%s", root, name);

	return n > 0 && (size_t)n < cap && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* Outputs of the programs; static storage inside cli_detect's frame. */
typedef struct tool_outputs {
	char nvidia[8192], nvidia_how[1200], nvidia_note[1200];
	char memsize[64], brand[256], ncpu[32], sysctl_cmd[1200];
	bool have_nvidia, have_sysctl;
} tool_outputs;

static void run_nvidia(const char *root, tool_outputs *t)
{
	char path[1024], why[512];
	char *argv[] = { "nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader,nounits",
		NULL };
	const char *file = "nvidia-smi";
	bool search = true;

	if (root) {
		if (!root_tool(root, "nvidia-smi", path, sizeof(path))) {
			snprintf(t->nvidia_note, sizeof(t->nvidia_note),
				 "%s/bin/nvidia-smi: absent (fixture root), not run", root);
			return;
		}
		file = path;
		search = false;
	}
	snprintf(t->nvidia_how, sizeof(t->nvidia_how), "%s %s", file, CR_DETECT_NVIDIA_SMI_ARGS);
	if (cli_capture(file, argv, search, t->nvidia, sizeof(t->nvidia), why, sizeof(why)) != 0) {
		snprintf(t->nvidia_note, sizeof(t->nvidia_note), "%.900s (%.250s)", t->nvidia_how, why);
		return;
	}
	t->have_nvidia = true;
}

static void run_sysctl(const char *root, tool_outputs *t)
{
	char path[1024], why[512];
	const char *file = "sysctl";
	bool search = true;
	char *a_mem[] = { "sysctl", "-n", "hw.memsize", NULL };
	char *a_brand[] = { "sysctl", "-n", "machdep.cpu.brand_string", NULL };
	char *a_ncpu[] = { "sysctl", "-n", "hw.ncpu", NULL };

	if (root) {
		if (!root_tool(root, "sysctl", path, sizeof(path)))
			return;
		file = path;
		search = false;
	} else {
#ifndef __APPLE__
		/* Only macOS has hw.memsize; Linux reads /proc instead. */
		return;
#endif
	}
	if (cli_capture(file, a_mem, search, t->memsize, sizeof(t->memsize), why, sizeof(why)) != 0)
		return;
	cli_capture(file, a_brand, search, t->brand, sizeof(t->brand), why, sizeof(why));
	cli_capture(file, a_ncpu, search, t->ncpu, sizeof(t->ncpu), why, sizeof(why));
	snprintf(t->sysctl_cmd, sizeof(t->sysctl_cmd), "%s", file);
	t->have_sysctl = true;
}

/* Probe size: 1 GiB, or 4x the last-level cache when that is larger (a
 * Genoa-X has 1.1 GiB of L3), at most 2 GiB so that writing the buffers
 * first stays short, and at most a quarter of RAM. */
static size_t probe_bytes(const cr_detect_result *r)
{
	uint64_t b = 1ull << 30;

	if (r->llc_bytes * 4 > b)
		b = r->llc_bytes * 4;
	if (b > (2ull << 30))
		b = 2ull << 30;
	if (r->ram_bytes && b > r->ram_bytes / 4)
		b = r->ram_bytes / 4;
	if (b < (64ull << 20))
		b = 64ull << 20;
	return (size_t)b;
}

int cli_detect(const cr_catalog *cat, const cli_detect_cfg *cfg, cr_detect_result *out,
	       cr_probe_result *probe)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	tool_outputs *t = calloc(1, sizeof(*t));
	char measured_how[256];
	cr_error err = CR_ERROR_INIT;
	int rc;

	if (probe)
		memset(probe, 0, sizeof(*probe));
	if (!t) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	run_nvidia(cfg->root, t);
	run_sysctl(cfg->root, t);
	o.root = cfg->root;
	o.catalog = cat;
	o.rig_id = cfg->rig_id;
	o.nvidia_smi = t->have_nvidia ? t->nvidia : NULL;
	o.nvidia_smi_how = t->nvidia_how;
	o.nvidia_smi_note = t->nvidia_note[0] ? t->nvidia_note : NULL;
	if (t->have_sysctl) {
		o.sysctl_memsize = t->memsize;
		o.sysctl_cpu_brand = t->brand;
		o.sysctl_ncpu = t->ncpu;
		o.sysctl_cmd = t->sysctl_cmd;
	}
	o.unknown_gpu_bw_gbs = cfg->gpu_bw_gbs;
	o.unknown_gpu_tflops = cfg->gpu_tflops;
	/* The library's findings and notes name our options through these. */
	o.gpu_bw_option = "--gpu-bw-gbs";
	o.measure_option = "--measure-bandwidth";
	o.measure_command = "clefrun detect --measure-bandwidth";
	rc = cr_detect_run(&o, out, &err);
	if (!rc && cfg->measure) {
		cr_probe_opts po = CR_PROBE_OPTS_INIT;
		cr_probe_result pr;

		po.bytes = probe_bytes(out);
		po.threads = out->cpu_logical;
		rc = cr_detect_measure_bandwidth(&po, &pr, &err);
		if (!rc) {
			snprintf(measured_how, sizeof(measured_how),
				 "clefrun bandwidth probe: %u threads reading %.0f MiB, median of %u passes (%.1f to %.1f GB/s)",
				 pr.threads, (double)pr.bytes / 1048576.0, pr.passes, pr.min_gbs,
				 pr.max_gbs);
			o.measured_ram_gbs = pr.gbs;
			o.measured_how = measured_how;
			if (probe)
				*probe = pr;
			rc = cr_detect_run(&o, out, &err);
		}
	}
	free(t);
	if (rc) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		return EXIT_ERROR;
	}
	return EXIT_OK_;
}
