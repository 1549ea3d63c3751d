/*
 * child.h -- run a piece of a unit test in a child process, for what
 * ends the process (a fatal error that aborts, a command that exits),
 * and read what it wrote to standard error.
 */
#ifndef KEEL_CHILD_H
#define KEEL_CHILD_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Fork, run fn(ctx) in the child with its standard error going to err
 * (up to cap - 1 bytes, NUL-terminated); the child is killed by SIGALRM
 * after 10 s, so a loop fails instead of hanging. Returns the child's
 * wait status, or -1 if no child could be made.
 */
static int
unit_in_child(void (*fn)(void *ctx), void *ctx, char *err, size_t cap)
{
	int fds[2];
	err[0] = '\0';
	if (pipe(fds) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		alarm(10);
		close(fds[0]);
		dup2(fds[1], 2);
		fn(ctx);
		_exit(0);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t r;
	while (got < cap - 1 &&
	       (r = read(fds[0], err + got, cap - 1 - got)) > 0)
		got += (size_t)r;
	err[got] = '\0';
	close(fds[0]);
	int st = -1;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

/* Defined when built with AddressSanitizer or MemorySanitizer: their
 * shadow memory takes so much address space that a child cannot be
 * limited in it, and their allocators abort where malloc would return
 * NULL. */
#if defined(__SANITIZE_ADDRESS__)
#define SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SHADOW_MEMORY 1
#endif
#endif

#endif /* KEEL_CHILD_H */
