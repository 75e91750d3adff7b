#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine/workload.h"

static void child_run(int go, int err, char *const argv[])
{
	char c;
	/* Parent gone or gave up: EOF, never exec. */
	if (read(go, &c, 1) != 1)
		_exit(127);
	close(go);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	int e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int workload_prepare(struct workload *w, char *const argv[])
{
	int go[2], er[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(er, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(er[0]);
		child_run(go[0], er[1], argv);
	}
	close(go[0]);
	close(er[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = er[0];
	return 0;
}

int workload_start(struct workload *w)
{
	char c = 1;
	int r = 0;
	if (write(w->go_fd, &c, 1) != 1)
		r = -errno;
	close(w->go_fd);
	w->go_fd = -1;
	int e = 0;
	ssize_t n;
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e))
		r = -e;
	return r;
}

void workload_abort(struct workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd); /* the child reads EOF and exits */
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0)
		waitpid(w->pid, NULL, 0);
	w->pid = 0;
}

int workload_exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}
