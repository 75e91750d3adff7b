/*
 * LD_PRELOAD shim for edge_upload.sh: it opens the window in which the
 * http sink's thread is inside its first round when `perfsink upload`
 * asks for the spool.  A thread's creator sleeps 100 ms after
 * pthread_create (the new thread starts its round first), and the first
 * curl_multi_perform of the process sleeps 300 ms (the round is still on
 * when upload() asks).  Only timing changes; every call reaches the real
 * function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef int (*perform_fn)(void *multi, int *running);
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void sleep_ms(long n)
{
	struct timespec ts = { n / 1000, (n % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

__attribute__((visibility("default"))) int curl_multi_perform(void *multi, int *running)
{
	static atomic_int first = 1;
	perform_fn real = (perform_fn)dlsym(RTLD_NEXT, "curl_multi_perform");

	if (atomic_exchange(&first, 0))
		sleep_ms(300);
	return real ? real(multi, running) : 2; /* CURLM_BAD_HANDLE */
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *t, const pthread_attr_t *a,
							   void *(*fn)(void *), void *arg)
{
	create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	int rc = real ? real(t, a, fn, arg) : 11; /* EAGAIN */

	if (rc == 0)
		sleep_ms(100);
	return rc;
}
