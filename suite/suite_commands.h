/*
 * suite_commands.h — the subcommands of `blkpeak suite`.
 *
 * Same contract as common/commands.h: `int suite_NAME(int argc, char **argv)`
 * with argv[0] == "NAME", returns EXIT_OK / EXIT_FAIL / EXIT_USAGE.
 * To add one: declare it here and add a row to the table in cmd_suite.c.
 */
#ifndef BLKPEAK_SUITE_COMMANDS_H
#define BLKPEAK_SUITE_COMMANDS_H

int suite_init(int argc, char **argv);   /* cmd_init.c */
int suite_run(int argc, char **argv);    /* cmd_run.c */
int suite_digest(int argc, char **argv); /* cmd_digest.c */
int suite_record(int argc, char **argv); /* cmd_record.c */

#endif
