/* daemon/cmd_backup.h — `kixd backup` (cmd_backup.c): a consistent,
 * compacted copy of a store made while kixd serves it, checked as
 * `kixd check` checks a store before it is named as a backup, with the
 * log key copied only when asked. */
#ifndef KIXD_CMD_BACKUP_H
#define KIXD_CMD_BACKUP_H

/* Returns an exit status: 0 backup written and checked, 1 refused or the
 * copy failed its check, 2 usage, 3 I/O error. */
int kixd_backup_main(int argc, char **argv);

#endif
