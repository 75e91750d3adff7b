/* aio_file: being written; placeholder so the tree builds. */
#include <perfsink/sink.h>
__attribute__((visibility("default"))) const struct perfsink_sink_ops *perfsink_sink_entry(void);
const struct perfsink_sink_ops *perfsink_sink_entry(void) { return 0; }
