/* Large pages for a store's maps (kix_store_opts.large_pages).
 *
 * A resolve at 10^6 entries reads some twenty records, each in a page of
 * data.mdb, index.mdb or log.dat that no other resolve touched lately: with
 * 4 KiB pages each costs a TLB miss whose page walk misses too (in a VM,
 * twice over), and the page cache's small folios a fault each. Asking the
 * kernel for huge pages on these maps (madvise MADV_HUGEPAGE) makes the
 * page cache read them in 2 MiB folios, mapped whole: kix-bench's resolve
 * through kixd at 10^6 went from ~330-375 to ~170-185 us on a cold cache
 * and ~100-110 us warm (tools/bench/RESULTS.md, "Resolve at 10^6"). The
 * cost is reading 2 MiB around a page the first time it is needed, which a
 * long-running server that reads its whole index anyway pays once; a
 * short-lived reader (a `kix` command) does not ask.
 *
 * Only advice: a kernel without transparent huge pages for files, or with
 * them off, ignores it and nothing changes. LMDB does not say where it
 * maps a file, so its maps are found in /proc/self/maps by the file's
 * device and inode (Linux; elsewhere nothing is done). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "db.h"

void kix__map_large_pages(void *addr, size_t len)
{
#ifdef MADV_HUGEPAGE
    if (addr && len)
        (void)madvise(addr, len, MADV_HUGEPAGE);
#else
    (void)addr;
    (void)len;
#endif
}

/* Every map of the file `name` in s->dir, as /proc/self/maps lists it. */
static void file_maps(const struct kix_store *s, const char *name)
{
    char path[4200], line[4600];
    struct stat st;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", s->dir, name);
    if (stat(path, &st) != 0 || !(f = fopen("/proc/self/maps", "re")))
        return;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi, ino;
        unsigned maj, mnr;
        if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &lo, &hi, &maj, &mnr, &ino) == 5 &&
            ino == (unsigned long)st.st_ino && makedev(maj, mnr) == st.st_dev)
            kix__map_large_pages((void *)lo, hi - lo);
    }
    fclose(f);
}

void kix__store_large_pages(struct kix_store *s)
{
    if (!s->large_pages)
        return;
    file_maps(s, "data.mdb");
    if (s->ienv)
        file_maps(s, KIX__INDEX_FILE);
}
