/*
 * C++ symbol names as perf report shows them: demangled (libstdc++'s
 * __cxa_demangle, found by configure), without the parameter list, the
 * qualifiers after it or a template function's return type
 * ("_ZNK2ns1K5cspinEi" -> "ns::K::cspin", "_ZN2ns5tspinIlEET_S1_" ->
 * "ns::tspin<long>").  Pure but for the demangler's malloc.
 */
#ifndef PS_PPROF_DEMANGLE_H
#define PS_PPROF_DEMANGLE_H
#include <stddef.h>

/* name demangled into out (n bytes); 0, or -1 when name is not a mangled
 * C++ name (or no demangler was built in): use it as it is. */
int pp_demangle(const char *name, char *out, size_t n);
/* Cut a full demangled name (with parameters) as perf shows it, in place. */
void pp_demangle_simplify(char *s);

#endif
