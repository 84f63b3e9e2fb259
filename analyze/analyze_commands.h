/*
 * analyze_commands.h — the subcommands of `blkpeak analyze`.
 *
 * Same contract as common/commands.h: `int analyze_NAME(int argc, char **argv)`
 * with argv[0] == "NAME", returns EXIT_OK / EXIT_FAIL / EXIT_USAGE.
 * To add one: declare it here and add a row to the table in cmd_analyze.c.
 */
#ifndef BLKPEAK_ANALYZE_COMMANDS_H
#define BLKPEAK_ANALYZE_COMMANDS_H

int analyze_import(int argc, char **argv);  /* cmd_import.c */
int analyze_report(int argc, char **argv);  /* cmd_report.c */
int analyze_compare(int argc, char **argv); /* cmd_compare.c */
int analyze_query(int argc, char **argv);   /* cmd_query.c */
int analyze_export(int argc, char **argv);  /* cmd_export.c */
int analyze_plot(int argc, char **argv);    /* cmd_plot.c */
int analyze_html(int argc, char **argv);    /* cmd_html.c */
int analyze_label(int argc, char **argv);   /* cmd_label.c */
int analyze_merge(int argc, char **argv);   /* cmd_merge.c */
int analyze_leaderboard(int argc, char **argv); /* cmd_leaderboard.c */

#endif
