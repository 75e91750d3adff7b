/* Command line of `perfsink`: subcommands and their options. */
#ifndef PS_CLI_H
#define PS_CLI_H

/* Each returns the process exit code. */
int cmd_record(int argc, char **argv);
int cmd_sinks(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_recover(int argc, char **argv); /* cli_recover.c */
int cmd_ls(int argc, char **argv);      /* cli_fetch.c */
int cmd_fetch(int argc, char **argv);   /* cli_fetch.c */
int cmd_archive(int argc, char **argv); /* cli_archive.c */
void usage_main(void);

#endif
