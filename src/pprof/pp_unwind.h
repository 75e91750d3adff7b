/* Moved to the shared pprof model (plugins/pprofmodel): this name stays for src/pprof. */
#include <perfsink/pprof_symbols.h>
