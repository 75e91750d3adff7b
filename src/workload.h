#ifndef PS_WORKLOAD_H
#define PS_WORKLOAD_H
#endif
