/* Shared by the config_*.c files. */
#ifndef PS_CONFIG_PRIV_H
#define PS_CONFIG_PRIV_H
#include "config/config_file.h"

#define ERR_MAX 1024

#endif
