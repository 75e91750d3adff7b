#ifndef PS_SINKSET_H
#define PS_SINKSET_H
#endif
