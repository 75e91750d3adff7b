#ifndef PS_ENGINE_H
#define PS_ENGINE_H
#endif
