/* Helpers the C test suites share (support.h). */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int ts_tmpdir(char *buf, size_t cap, const char *tag)
{
	const char *t = getenv("TMPDIR");
	int n = snprintf(buf, cap, "%s/clefrun-%s-XXXXXX", t && *t ? t : "/tmp", tag);

	if (n < 0 || (size_t)n >= cap)
		return -1;
	return mkdtemp(buf) ? 0 : -1;
}

int ts_rm_tree(const char *path)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	(void)chmod(path, (st.st_mode & 07777) | S_IRWXU);
	if (!(d = opendir(path)))
		return -1;
	while ((de = readdir(d))) {
		char sub[4096];
		int n;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		n = snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(sub) || ts_rm_tree(sub) != 0)
			rc = -1;
	}
	closedir(d);
	return rmdir(path) == 0 ? rc : -1;
}

char *ts_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *b;

	if (!f)
		return NULL;
	b = malloc(cap);
	while (b) {
		size_t got = fread(b + n, 1, cap - n - 1, f);
		char *nb;

		n += got;
		if (n < cap - 1)
			break;
		nb = realloc(b, cap * 2);
		if (!nb)
			free(b);
		b = nb;
		cap *= 2;
	}
	if (b && ferror(f)) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (!b)
		return NULL;
	b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

int ts_server_start(ts_server *s, const char *root, const char *log)
{
	int fds[2];
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (!CLEFRUN_PYTHON[0] || pipe(fds))
		return -1;
	s->pid = fork();
	if (s->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		s->pid = 0;
		return -1;
	}
	if (s->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(CLEFRUN_PYTHON, CLEFRUN_PYTHON, CLEFRUN_HTTP_SERVER, "--root", root, "--log", log,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f || fscanf(f, "PORT %d", &s->port) != 1) {
		if (f)
			fclose(f);
		else
			close(fds[0]);
		ts_server_stop(s);
		return -1;
	}
	fclose(f);
	snprintf(s->base, sizeof(s->base), "http://127.0.0.1:%d", s->port);
	return 0;
}

void ts_server_stop(ts_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = 0;
}
