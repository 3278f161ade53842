/* The import rate of each source (kix-import liger, kix-import kernelbench):
 * its bundled sample (tools/samples/) into a fresh store, with the publisher
 * key registered, every receipt verified as an import does. The figure is
 * the importer's own runs/s (its --json runsPerSecond: read, build, sign,
 * submit, verify), and the wall time of the whole command beside it. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* "NAME":<number> in the JSON summary the importer printed into log. */
static double json_number(const char *log, const char *name)
{
    char key[64], *text = NULL, *p;
    size_t cap = 0, len = 0;
    double v = -1;
    FILE *f = fopen(log, "r");
    if (!f)
        return -1;
    snprintf(key, sizeof(key), "\"%s\":", name);
    while (getline(&text, &cap, f) > 0) {
        len = strlen(text);
        if (len && text[0] == '{' && (p = strstr(text, key)) != NULL)
            v = strtod(p + strlen(key), NULL);
    }
    free(text);
    fclose(f);
    return v;
}

static void import_one(const char *bin, const char *src, const char *work, const char *source,
                       char **paths, size_t npaths, struct bench_report *rep)
{
    char store[4096], vkey[4096], akey[4096], log[4096], kix[4096], kixd[4096], imp[4096],
        pub[4096], pubkey[4096], key[96], label[160], problems[4096];
    char *argv[64];
    size_t n = 0;
    double t0, t1, runs, rate;

    bench_path(store, sizeof(store), "%s/import-%s", work, source);
    bench_path(vkey, sizeof(vkey), "%s/import-%s.vkey", work, source);
    bench_path(akey, sizeof(akey), "%s/admin.key", store);
    bench_path(log, sizeof(log), "%s/import-%s.log", work, source);
    bench_path(kix, sizeof(kix), "%s/kix", bin);
    bench_path(kixd, sizeof(kixd), "%s/kixd", bin);
    bench_path(imp, sizeof(imp), "%s/kix-import", bin);
    bench_path(pub, sizeof(pub), "%s/import-publisher", work);
    bench_path(pubkey, sizeof(pubkey), "%s/import-publisher.pub", work);
    bench_path(problems, sizeof(problems), "%s/tools/samples/kernelbench/problems.json", src);
    {
        char *init[] = {kixd,          "init", "--store",  store,
                        "--admin-key", akey,   "--origin", "bench.local/import",
                        NULL};
        char *gen[] = {kix, "keygen", "--name", "bench-importer", "--out", pub, NULL};
        char *add[] = {kix,  "key",    "add",     "--store", store, "--key",
                       akey, "--role", "publish", pubkey,    NULL};
        if (bench_run(init, vkey) != 0 || (access(pubkey, R_OK) != 0 && bench_run(gen, log) != 0) ||
            bench_run(add, log) != 0)
            bench_die("import %s: setting up %s failed (see %s)", source, store, log);
    }
    bench_path(pub, sizeof(pub), "%s/import-publisher.key", work);
    argv[n++] = imp;
    argv[n++] = (char *)source;
    argv[n++] = "--key";
    argv[n++] = pub;
    argv[n++] = "--store";
    argv[n++] = store;
    argv[n++] = "--json";
    if (strcmp(source, "kernelbench") == 0) {
        argv[n++] = "--problems";
        argv[n++] = problems;
    }
    for (size_t i = 0; i < npaths && n + 1 < sizeof(argv) / sizeof(argv[0]); i++)
        argv[n++] = paths[i];
    argv[n] = NULL;
    t0 = bench_now();
    if (bench_run(argv, log) != 0)
        bench_die("kix-import %s failed (see %s)", source, log);
    t1 = bench_now();
    runs = json_number(log, "runs");
    rate = json_number(log, "runsPerSecond");
    if (runs <= 0 || rate <= 0)
        bench_die("kix-import %s: no summary in %s", source, log);
    snprintf(key, sizeof(key), "import.%s_runs_per_s", source);
    snprintf(label, sizeof(label), "kix-import %s, its sample (%.0f runs)", source, runs);
    bench_fig(rep, key, rate, "/s", label);
    snprintf(key, sizeof(key), "import.%s_wall_s", source);
    bench_fig(rep, key, t1 - t0, "s", "  wall time of the command");
}

void bench_import(const char *bin, const char *src, const char *work, struct bench_report *rep)
{
    char csv[4096], pattern[4096];
    char *liger[] = {csv};
    glob_t g;

    bench_path(csv, sizeof(csv), "%s/tools/samples/liger/sample.csv", src);
    bench_say("import: the bundled Liger and KernelBench samples");
    import_one(bin, src, work, "liger", liger, 1, rep);
    bench_path(pattern, sizeof(pattern), "%s/tools/samples/kernelbench/results/timing/*/*.json",
               src);
    if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc == 0)
        bench_die("import: no KernelBench sample under %s", pattern);
    import_one(bin, src, work, "kernelbench", g.gl_pathv, g.gl_pathc, rep);
    globfree(&g);
}
