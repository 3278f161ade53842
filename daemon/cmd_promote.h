/* daemon/cmd_promote.h — kixd promote (cmd_promote.c): makes a mirror's
 * store the origin of its log, when the origin is lost, so that kixd serve
 * continues the same log from the latest checkpoint the mirror verified.
 *
 * It refuses (exit 1) a store that is not a mirror's (no DIR/mirror.id,
 * mirror.h), one already promoted, one holding no entries, one whose
 * mirror found a fork (DIR/fork/), one a kixd serves (DIR/kixd.lock), a
 * key that is not the log's (both keys named), and a store that fails the
 * checks of kixd check. Then it writes DIR/promoted (atomically, synced):
 * from then on kixd serve serves DIR as the origin only (it refuses
 * --mirror-of there, and a mirror's store without that file as an origin).
 * OPERATING.md has the operator's procedure. */
#ifndef KIXD_CMD_PROMOTE_H
#define KIXD_CMD_PROMOTE_H

/* Returns an exit status: 0 promoted, 1 refused, 2 usage, 3 I/O error. */
int kixd_promote_main(int argc, char **argv);

#endif
