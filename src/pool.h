#ifndef PS_POOL_H
#define PS_POOL_H
#endif
