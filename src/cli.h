#ifndef PS_CLI_H
#define PS_CLI_H
#endif
