#ifndef PS_RING_H
#define PS_RING_H
#endif
