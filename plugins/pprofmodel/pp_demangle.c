/* C++ names as perf shows them; see <perfsink/pprof_symbols.h>. */
#include <perfsink/pprof_symbols.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CXA_DEMANGLE
/* libstdc++'s demangler (the C++ ABI's, declared here for C). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* The index of the '(' that opens the ')' at s[end - 1], or -1. */
static long open_paren(const char *s, size_t end)
{
	int depth = 0;
	for (size_t i = end; i-- > 0;) {
		depth += (s[i] == ')') - (s[i] == '(');
		if (!depth)
			return (long)i;
	}
	return -1;
}

void pp_demangle_simplify(char *s)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	size_t n = strlen(s);
	char clone[128] = "";
	char *c = strstr(s, " [clone ");
	if (c) { /* a GCC clone (.constprop.0): kept after the name, as perf keeps it */
		snprintf(clone, sizeof(clone), "%s", c);
		n = (size_t)(c - s);
	}
	for (int again = 1; again;) {
		again = 0;
		for (unsigned i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
			if (ends_with(s, n, quals[i])) {
				n -= strlen(quals[i]);
				again = 1;
			}
	}
	long p = n && s[n - 1] == ')' ? open_paren(s, n) : -1;
	if (p > 0)
		n = (size_t)p;
	s[n] = 0;
	/* Only template functions carry a return type ("void f<int>"). */
	if (n && s[n - 1] == '>' && !strstr(s, "operator")) {
		int depth = 0;
		long space = -1;
		for (size_t i = 0; i < n; i++) {
			depth += (s[i] == '<' || s[i] == '(') - (s[i] == '>' || s[i] == ')');
			if (!depth && s[i] == ' ')
				space = (long)i;
		}
		if (space >= 0)
			memmove(s, s + space + 1, n - (size_t)space);
	}
	if (clone[0])
		snprintf(s + strlen(s), sizeof(clone), "%s", clone);
}

int pp_demangle(const char *name, char *out, size_t n)
{
#ifdef HAVE_CXA_DEMANGLE
	int status = -1;
	if (strncmp(name, "_Z", 2))
		return -1;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		return -1;
	}
	pp_demangle_simplify(d);
	snprintf(out, n, "%s", d);
	free(d);
	return 0;
#else
	(void)name, (void)out, (void)n;
	return -1;
#endif
}
