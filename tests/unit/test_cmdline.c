/* kix/cmdline.h: one table per command. Its flags, texts and counts land
 * in their typed fields, an id option goes back to the caller's loop, an
 * unknown option or a missing value is named with the fix, and --help and
 * --dump-options print the same table the loop read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kix/cmdline.h"

struct parsed {
    int quick;
    const char *store;
    uint64_t tail;
    int ids[8], nids;
    const char *values[8];
    int unknown; /* kix_cmdline_explain: the option is none of the table's */
};

/* Parses argv (NULL-terminated) against a table of every kind; returns
 * the status that ended the loop, the message for a bad one in why. */
static enum kix_cmdline_status parse(char **argv, struct parsed *p, char *why, size_t cap)
{
    const struct kix_opt opts[] = {
        KIX_NOTE("\nSomething about the command.\n\n"),
        KIX_STRING("store", "DIR", &p->store, "the store"),
        KIX_FLAG("quick", &p->quick, "check less"),
        KIX_U64("tail", "N", &p->tail, "the last N"),
        {.kind = KIX_OPT_ID,
         .name = "witness",
         .short_name = 'w',
         .arg = "KEY",
         .id = 7,
         .help = "a witness key; repeat for more",
         .complete = "file",
         .config = "witness"},
        KIX_ID("hidden", NULL, 8, NULL),
    };
    const struct kix_cmd cmd = {"kix test", "--store DIR [options]",        NULL,
                                opts,       sizeof(opts) / sizeof(opts[0]), "\nexit status: 0 ok\n",
                                20};
    struct kix_cmdline c;
    enum kix_cmdline_status st;
    int argc = 0;

    while (argv[argc])
        argc++;
    memset(p, 0, sizeof(*p));
    kix_cmdline_start(&c, &cmd, argc, argv);
    while ((st = kix_cmdline_next(&c)) == KIX_CMDLINE_OPTION && p->nids < 8) {
        p->values[p->nids] = c.value;
        p->ids[p->nids++] = c.opt->id;
    }
    if (st == KIX_CMDLINE_BAD || st == KIX_CMDLINE_BAD_U64)
        p->unknown = kix_cmdline_explain(&c, st, why, cap);
    return st;
}

/* What f printed, as a string (freed by the caller). */
static char *captured(FILE *f)
{
    long n = ftell(f);
    char *s = malloc((size_t)n + 1);
    rewind(f);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        n = 0;
    s[n] = '\0';
    return s;
}

KIX_TEST(typed_fields)
{
    char a0[] = "test", a1[] = "--quick", a2[] = "--store=d", a3[] = "--tail", a4[] = "42",
         a5[] = "-w", a6[] = "k1", a7[] = "--witness", a8[] = "k2", a9[] = "--hidden",
         a10[] = "operand";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a10, a7, a8, a9, NULL};
    struct parsed p;
    char why[200] = "";

    ASSERT_EQ_INT(KIX_CMDLINE_END, parse(argv, &p, why, sizeof(why)));
    ASSERT_EQ_INT(1, p.quick);
    ASSERT_EQ_STR("d", p.store);
    ASSERT_EQ_U64(42, p.tail);
    ASSERT_EQ_INT(3, p.nids); /* the id options, in order, with their values */
    ASSERT_EQ_INT(7, p.ids[0]);
    ASSERT_EQ_STR("k1", p.values[0]);
    ASSERT_EQ_STR("k2", p.values[1]);
    ASSERT_EQ_INT(8, p.ids[2]);
    ASSERT_TRUE(p.values[2] == NULL);
    ASSERT_EQ_STR("operand", argv[optind]); /* operands after the options */
}

KIX_TEST(errors_name_the_option)
{
    char a0[] = "test", a1[] = "--sotre", a2[] = "x", b1[] = "--store", c1[] = "--tail",
         c2[] = "-3", d1[] = "--quick=yes", e1[] = "-z";
    char *unknown[] = {a0, a1, a2, NULL}, *novalue[] = {a0, b1, NULL},
         *badcount[] = {a0, c1, c2, NULL}, *flagvalue[] = {a0, d1, NULL},
         *shortopt[] = {a0, e1, NULL};
    struct parsed p;
    char why[200];

    ASSERT_EQ_INT(KIX_CMDLINE_BAD, parse(unknown, &p, why, sizeof(why)));
    ASSERT_EQ_STR("unknown option '--sotre'; did you mean '--store'?", why);
    ASSERT_EQ_INT(1, p.unknown);
    ASSERT_EQ_INT(KIX_CMDLINE_BAD, parse(novalue, &p, why, sizeof(why)));
    ASSERT_EQ_STR("option '--store' needs a value (--store DIR)", why);
    ASSERT_EQ_INT(0, p.unknown);
    ASSERT_EQ_INT(KIX_CMDLINE_BAD_U64, parse(badcount, &p, why, sizeof(why)));
    ASSERT_EQ_STR("--tail needs a whole number (--tail N), not \"-3\"", why);
    ASSERT_EQ_INT(KIX_CMDLINE_BAD, parse(flagvalue, &p, why, sizeof(why)));
    ASSERT_EQ_STR("option '--quick' takes no value", why);
    ASSERT_EQ_INT(KIX_CMDLINE_BAD, parse(shortopt, &p, why, sizeof(why)));
    ASSERT_EQ_STR("unknown option '-z'", why);
    ASSERT_EQ_INT(1, p.unknown);
}

KIX_TEST(help_and_dump_from_the_table)
{
    const struct kix_opt opts[] = {
        KIX_NOTE("\nAbout it.\n\n"),
        KIX_STRING("store", "DIR", NULL, "the store\nsecond line"),
        {.kind = KIX_OPT_ID,
         .name = "witness",
         .short_name = 'w',
         .arg = "KEY",
         .id = 7,
         .help = "a witness key",
         .complete = "file",
         .config = "witness"},
        KIX_ID("hidden", NULL, 8, NULL),
    };
    const struct kix_cmd cmd = {"kix test", "--store DIR\nkix test other",  NULL,
                                opts,       sizeof(opts) / sizeof(opts[0]), "\nexit status: 0 ok\n",
                                20};
    FILE *f = tmpfile();
    char *text;

    ASSERT_TRUE(f != NULL);
    kix_cmdline_help(f, &cmd);
    text = captured(f);
    ASSERT_EQ_STR("usage: kix test --store DIR\n"
                  "       kix test other\n"
                  "\nAbout it.\n\n"
                  "  --store DIR       the store\n"
                  "                    second line\n"
                  "  -w, --witness KEY\n"
                  "                    a witness key\n"
                  "\nexit status: 0 ok\n",
                  text);
    free(text);
    fclose(f);
    f = tmpfile();
    ASSERT_TRUE(f != NULL);
    kix_cmdline_dump(f, &cmd);
    text = captured(f);
    ASSERT_EQ_STR("kix test\n"
                  "kix test\t--store\t-\tDIR\tdir\t-\tthe store\n"
                  "kix test\t--witness\t-w\tKEY\tfile\twitness\ta witness key\n"
                  "kix test\t--hidden\t-\t-\t-\t-\t-\n"
                  "kix test\t--help\t-h\t-\t-\t-\tprint this help\n",
                  text);
    free(text);
    fclose(f);
}

KIX_TEST_MAIN()
