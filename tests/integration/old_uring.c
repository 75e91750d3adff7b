/*
 * LD_PRELOAD shim for uring_old_kernel.sh: liburing's
 * io_uring_queue_init_params refuses IORING_SETUP_SINGLE_ISSUER and
 * IORING_SETUP_DEFER_TASKRUN with -EINVAL, as a kernel before 6.1 does;
 * any other ring is set up as usual.
 */
#include <dlfcn.h>
#include <errno.h>
#include <liburing.h>

#define NEW_FLAGS ((1U << 12) | (1U << 13)) /* SINGLE_ISSUER, DEFER_TASKRUN: kernel ABI */

__attribute__((visibility("default")))
int io_uring_queue_init_params(unsigned entries, struct io_uring *ring, struct io_uring_params *p)
{
	int (*real)(unsigned, struct io_uring *, struct io_uring_params *);
	if (p->flags & NEW_FLAGS)
		return -EINVAL;
	/* The plugin's liburing was dlopen'd locally: RTLD_NEXT does not see it. */
	void *lib = dlopen("liburing.so.2", RTLD_LAZY | RTLD_NOLOAD);
	*(void **)&real = lib ? dlsym(lib, "io_uring_queue_init_params") : NULL;
	return real ? real(entries, ring, p) : -ENOSYS;
}
