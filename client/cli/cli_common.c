/* The options every log command shares: where the log is, which key. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kix/source.h"
#include "kix/addr.h"
#include "kix/canon.h"
#include "kix/client.h"
#include "kix/config.h"
#include "kix/encoding.h"
#include "kix/note.h"
#include "kix/trust.h"

/* --no-cache, before or after the command: read by cli_trust_check, which
 * takes no struct cli_common */
static int cache_off;

void cli_common_init(struct cli_common *c)
{
    *c = cli_global;
    c->witness_global = cli_global.nwitness > 0;
}

int cli_common_option(struct cli_common *c, int opt, const char *arg)
{
    switch (opt) {
    case 0x101:
        c->store = arg;
        return 1;
    case 0x102:
        c->server = arg;
        return 1;
    case 0x103:
        c->log_key = arg;
        return 1;
    case 0x104:
        c->json = 1;
        return 1;
    case 0x105:
        if (c->witness_global) { /* the command's own --witness list replaces the global one */
            c->witness_global = 0;
            c->nwitness = 0;
        }
        if (c->nwitness < CLI_WITNESSES_MAX)
            c->witness[c->nwitness] = arg;
        c->nwitness++;
        return 1;
    case 0x107:
        c->cacert = arg;
        return 1;
    case 0x108:
        c->no_cache = 1;
        cache_off = 1;
        return 1;
    case 0x106:
        c->min_witnesses = arg;
        return 1;
    case 0x109:
        c->max_age = arg;
        return 1;
    }
    return 0;
}

/* The config file (kix/config.h), read once per process; its warnings
 * (an unknown line) on stderr. NULL after an error it printed. */
static void config_warn(void *ctx, const char *message)
{
    fprintf(stderr, "kix %s: warning: %s\n", (const char *)ctx, message);
}

static const struct kix_config *config(const char *cmd, int *status)
{
    static struct kix_config cfg;
    static int loaded, failed;
    struct kix_err err = {0};

    if (!loaded) {
        loaded = 1;
        if (kix_config_load(&cfg, config_warn, (void *)cmd, &err) != KIX_OK) {
            failed = 1;
            *status = cli_fail(cmd, err.code, &err);
        }
    }
    return failed ? NULL : &cfg;
}

/* The command's witness rules (one command per process). */
static struct kix_verifier witness_keys[CLI_WITNESSES_MAX];
static struct kix_witness_policy witness_policy = {witness_keys, 0, 0, 0};

/* Where else a copy that lags may be proven a prefix of what this client
 * verified: the permalink's own log when --server names a copy. */
static char prover_addr[4096];
static const char *prover_cacert;
/* The first checkpoint a command read that was older than the remembered
 * one (cli_stale_status reports it). */
static struct kix_trust_stale stale_seen;

/* A checkpoint that failed to verify because no line of it names the log
 * key: the key of another log given (--log-key). Both keys, as members of
 * the --json error object; cli_fail_with adds them and names the flag. */
static json_t *key_mismatch;

static void note_key_mismatch(const struct kix_verifier *key, const char *note, size_t len)
{
    struct kix_note *n = malloc(sizeof(*n));
    json_t *signers = NULL;
    char name[KIX_NOTE_NAME_MAX + 12];

    json_decref(key_mismatch);
    key_mismatch = NULL;
    if (!n)
        return;
    if (kix_note_open(note, len, NULL, 0, n, NULL) != KIX_OK && n->nsigs) {
        signers = json_array();
        for (size_t i = 0; signers && i < n->nsigs; i++) {
            if (n->sigs[i].name.len == strlen(key->name) &&
                memcmp(n->sigs[i].name.ptr, key->name, n->sigs[i].name.len) == 0 &&
                n->sigs[i].key_hash == key->key_hash) {
                json_decref(signers); /* the log key signed: some other failure */
                signers = NULL;
                break;
            }
            snprintf(name, sizeof(name), "%.*s+%08x", (int)n->sigs[i].name.len,
                     (const char *)n->sigs[i].name.ptr, n->sigs[i].key_hash);
            if (json_array_append_new(signers, json_string(name)) != 0) {
                json_decref(signers);
                signers = NULL;
            }
        }
        snprintf(name, sizeof(name), "%s+%08x", key->name, key->key_hash);
        if (signers)
            key_mismatch = json_pack("{s:s,s:o}", "expectedKey", name, "signedBy", signers);
    }
    free(n);
}

json_t *cli_key_mismatch(void)
{
    return key_mismatch;
}

void cli_cache_off(void)
{
    cache_off = 1;
}

int cli_trust_check(struct kix_client *c, const struct kix_verifier *key, const char *note,
                    size_t len, struct kix_checkpoint *cp, struct kix_err *err)
{
    struct kix_checkpoint own;
    struct kix_trust_stale st;
    const char *provers[1] = {prover_addr};
    struct kix_http_opts ho = {prover_cacert, 0, 0, -1};
    struct kix_trust_read ropts = {provers, prover_addr[0] ? 1 : 0, &ho};
    int rc = kix_witness_check(note, len, key, &witness_policy, NULL, err);

    if (rc && rc != KIX_ESTALE)
        kix_err_wrap(err, "checkpoint from %s", kix_client_where(c));
    if (rc == KIX_OK)
        rc = kix_trust_check_read(c, key, note, len, &ropts, &st, cp ? cp : &own, err);
    if (rc == KIX_EVERIFY)
        note_key_mismatch(key, note, len);
    if (rc == KIX_OK && st.stale && !stale_seen.stale)
        stale_seen = st;
    /* every checkpoint the command believes passes here: an HTTP source
     * may keep what it reads of this tree from now on (--no-cache: not;
     * nor a copy that lags and is not proven a prefix: it may be a fork) */
    if (rc == KIX_OK && !cache_off && !(st.stale && !st.proven))
        rc = kix_client_cache_verified(c, NULL, key, cp ? cp : &own, err);
    return rc;
}

int cli_trust_latest(struct kix_client *c, const struct kix_verifier *key, struct kix_buf *note,
                     struct kix_checkpoint *cp, struct kix_err *err)
{
    size_t start = note->len;
    int rc = kix_client_checkpoint(c, KIX_NO_INDEX, note, err);
    if (rc)
        return rc;
    return cli_trust_check(c, key, (const char *)note->ptr + start, note->len - start, cp, err);
}

static int have_log_key(const struct cli_common *c)
{
    return kix_trust_log_key_given(c->log_key) || c->store;
}

int cli_contact(const char *cmd, const struct cli_common *c, struct kix_client *client,
                struct kix_verifier *key, enum cli_contact_mode mode, int *have_key)
{
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    int status, rc;

    if (have_key)
        *have_key = 0;
    if (mode == CLI_CONTACT_STATUS && !have_log_key(c))
        return 0;
    if ((status = cli_log_key(cmd, c, client, key)))
        return status;
    if (have_key)
        *have_key = 1;
    if (mode == CLI_CONTACT_READ) {
        rc = cli_trust_latest(client, key, &note, &cp, &err);
    } else {
        rc = kix_client_checkpoint(client, KIX_NO_INDEX, &note, &err);
        /* a mirror that has verified nothing yet has no checkpoint: a status
         * look has nothing to check then (its state says why) */
        if (rc == KIX_ENOTFOUND) {
            kix_buf_release(&note);
            return 0;
        }
        if (rc == KIX_OK)
            rc = cli_witness_check(key, (const char *)note.ptr, note.len, NULL, &err);
        if (rc == KIX_OK)
            rc = kix_trust_check_status(client, key, (const char *)note.ptr, note.len, &cp, &err);
        if (rc == KIX_EVERIFY)
            note_key_mismatch(key, (const char *)note.ptr, note.len);
    }
    kix_buf_release(&note);
    return rc ? cli_fail(cmd, rc, &err) : 0;
}

int cli_stale_status(const char *cmd, int status)
{
    const struct kix_trust_stale *st = &stale_seen;

    /* a "not found" from a copy behind is an answer as of its size too:
     * what it lacks may be in the entries it has not reached */
    if (!st->stale || !(status == 0 || (status == EXIT_REJECTED && cli_last_code == KIX_ENOTFOUND)))
        return status;
    fprintf(stderr,
            "kix%s%s: STALE COPY: the server serves the log at size %llu, %llu entries behind the "
            "size %llu this client verified before; the answer above is as of size %llu. %s%s%s.\n"
            "Read a current copy or the log's origin for newer entries.\n",
            *cmd ? " " : "", cmd, (unsigned long long)st->size,
            (unsigned long long)(st->remembered - st->size), (unsigned long long)st->remembered,
            (unsigned long long)st->size,
            st->proven ? "Its tree is proven a prefix of the verified one by "
                       : "Its tree is NOT proven a prefix of the verified one (no one could "
                         "prove it: ",
            st->by, st->proven ? "" : ")");
    if (!st->proven)
        fprintf(stderr, "It may be a fork the origin would expose: check it there when you can.\n");
    return EXIT_STALE;
}

int cli_stale_refuse(const char *cmd)
{
    struct kix_trust_stale *st = &stale_seen;
    char message[1400];
    json_t *data;
    int status;

    if (!st->stale)
        return 0;
    snprintf(message, sizeof(message),
             "refusing to write: the server serves the log at size %llu, behind the size %llu "
             "this client verified before (%s%s%s); what it appends would fork the log. Nothing "
             "was signed or sent",
             (unsigned long long)st->size, (unsigned long long)st->remembered,
             st->proven ? "a stale copy, proven a prefix by " : "not proven a prefix: ", st->by,
             "");
    data = json_pack("{s:I,s:I}", "size", (json_int_t)st->size, "verifiedSize",
                     (json_int_t)st->remembered);
    {
        struct cli_error e = {"staleCopy",
                              message,
                              kix_strerror(KIX_ESTALE),
                              "write to the log's origin, once it serves the size this client "
                              "verified",
                              NULL,
                              data};
        st->stale = 0; /* reported here, not again at the end */
        status = cli_report(cmd, EXIT_STALE, &e);
        json_decref(data);
        return status;
    }
}

int cli_witness_check_index(const struct kix_verifier *key, const char *note, size_t len,
                            struct kix_err *err)
{
    return kix_witness_check_index(note, len, key, &witness_policy, NULL, err);
}

int cli_witness_check(const struct kix_verifier *key, const char *note, size_t len, size_t *found,
                      struct kix_err *err)
{
    return kix_witness_check(note, len, key, &witness_policy, found, err);
}

/* A verifier key given as a file name or as the key text itself. */
static int read_key_arg(const char *cmd, const char *given, const char *what,
                        struct kix_verifier *out);

/* "90", "90s", "15m", "2h", "1d": seconds into *out; -1 when malformed. */
static int parse_duration(const char *s, uint64_t *out)
{
    static const struct {
        char unit;
        uint64_t seconds;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 604800}};
    char digits[32];
    size_t n = strspn(s, "0123456789");
    uint64_t v, mul = 1;

    if (n == 0 || n >= sizeof(digits))
        return -1;
    memcpy(digits, s, n);
    digits[n] = '\0';
    if (s[n]) {
        size_t i;
        for (i = 0; i < sizeof(units) / sizeof(units[0]) && units[i].unit != s[n]; i++)
            ;
        if (i == sizeof(units) / sizeof(units[0]) || s[n + 1])
            return -1;
        mul = units[i].seconds;
    }
    if (cli_parse_u64(digits, &v) || v == 0 || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* Parses --witness and --min-witnesses into the command's policy. */
static int load_witnesses(const char *cmd, const struct cli_common *given)
{
    uint64_t min = 0;
    int status = 0;
    struct cli_common from_config;
    const struct cli_common *c = given;
    const struct kix_config *cfg = config(cmd, &status);

    if (!cfg)
        return status;
    /* the command line wins; else the config file's witnesses and quorum */
    if (!given->nwitness && !given->min_witnesses && (cfg->nwitness || cfg->min_witnesses[0])) {
        from_config = *given;
        for (size_t i = 0; i < cfg->nwitness; i++)
            from_config.witness[i] = cfg->witness[i];
        from_config.nwitness = cfg->nwitness;
        from_config.min_witnesses = cfg->min_witnesses[0] ? cfg->min_witnesses : NULL;
        c = &from_config;
    }

    if (c->nwitness > CLI_WITNESSES_MAX)
        return cli_usage_error(cmd, "at most %d --witness keys", CLI_WITNESSES_MAX);
    if (c->min_witnesses && cli_parse_u64(c->min_witnesses, &min))
        return cli_usage_error(cmd, "--min-witnesses needs a non-negative integer");
    if (min > c->nwitness)
        return cli_usage_error(cmd,
                               "--min-witnesses %llu needs at least that many --witness keys "
                               "(%zu given)",
                               (unsigned long long)min, c->nwitness);
    for (size_t i = 0; i < c->nwitness; i++) {
        if ((status = read_key_arg(cmd, c->witness[i], "--witness", &witness_keys[i])))
            return status;
        if (witness_keys[i].alg != KIX_NOTE_ALG_COSIGN)
            return cli_usage_error(cmd,
                                   "--witness %s is not a witness key (make one with kix keygen "
                                   "--witness)",
                                   witness_keys[i].name);
    }
    witness_policy.nkeys = c->nwitness;
    witness_policy.min = (size_t)min;
    if (given->max_age) {
        /* the age comes from the witnesses' cosignature times: a log's own
         * signature says nothing of when a copy last heard from it */
        if (parse_duration(given->max_age, &witness_policy.max_age))
            return cli_usage_error(cmd,
                                   "--max-age %s: expected a positive duration: seconds, or a "
                                   "number and s, m, h, d or w (90s, 15m, 2h, 1d)",
                                   given->max_age);
        if (!c->nwitness)
            return cli_usage_error(cmd,
                                   "--max-age needs --witness keys (or witnesses in "
                                   "~/.config/kix/config): a checkpoint's age is the time of its "
                                   "newest witness cosignature");
    }
    return 0;
}

/* An http(s):// address: a host (a name, IPv4 or [IPv6]), an optional
 * numeric port, then a path; no spaces or control characters. */
static int http_addr_ok(const char *addr)
{
    const char *host = addr + (strncmp(addr, "https://", 8) == 0 ? 8 : 7);
    size_t hl = strcspn(host, "/?#");
    const char *port = NULL;

    for (const char *p = addr; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    if (hl == 0 || memchr(host, '@', hl))
        return 0;
    if (host[0] == '[') {
        const char *end = memchr(host, ']', hl);
        if (!end || end == host + 1)
            return 0;
        if ((size_t)(end + 1 - host) < hl) {
            if (end[1] != ':')
                return 0;
            port = end + 2;
        }
    } else {
        const char *colon = memchr(host, ':', hl);
        if (colon == host)
            return 0;
        if (colon)
            port = colon + 1;
    }
    if (port) {
        size_t digits = (size_t)(host + hl - port);
        unsigned long v = 0;
        if (digits == 0 || digits > 5)
            return 0;
        for (size_t i = 0; i < digits; i++) {
            if (port[i] < '0' || port[i] > '9')
                return 0;
            v = v * 10 + (unsigned long)(port[i] - '0');
        }
        if (v > 65535)
            return 0;
    }
    return 1;
}

int cli_check_addr(const char *cmd, const char *addr)
{
    struct kix_err err = {0};
    json_t *data, *given;
    int status;

    if (kix_source_is_http(addr)) {
        if (http_addr_ok(addr))
            return 0;
        kix_err_set(&err, KIX_EUSAGE,
                    "bad address %s: expected https://HOST[:PORT]/PATH (HOST a name, an IPv4 "
                    "address or [IPv6])",
                    addr);
    } else if (addr[0] == '/' || kix_addr_validate(addr, &err) == KIX_OK) {
        return 0; /* a bare /PATH is a Unix socket, as kix_client_connect reads it */
    } else if (*addr && !strstr(addr, "://")) {
        /* a bare HOST:PORT is tcp://HOST:PORT, as kix_client_connect reads it */
        char full[300];
        snprintf(full, sizeof(full), "tcp://%s", addr);
        if (strlen(addr) < 290 && kix_addr_validate(full, &err) == KIX_OK)
            return 0;
    } else if (!*addr) {
        kix_err_set(&err, KIX_EUSAGE, "bad address '': empty");
    } else if (strncmp(addr, "tcp://", 6) != 0 && strncmp(addr, "unix://", 7) != 0) {
        kix_err_set(&err, KIX_EUSAGE,
                    "bad address %s: expected tcp://HOST:PORT, unix:///PATH or "
                    "https://HOST/PATH",
                    addr);
    }
    {
        struct cli_error e = {"badAddress",
                              err.msg,
                              "usage error",
                              "give --server as tcp://HOST:PORT, unix:///PATH or "
                              "https://HOST/PATH",
                              NULL,
                              NULL};
        /* the address given, its first 80 bytes (none when they cut a character) */
        given = json_stringn(addr, strnlen(addr, 80));
        data = given ? json_pack("{s:o}", "address", given) : NULL;
        e.data = data;
        status = cli_report(cmd, EXIT_USAGE, &e);
        json_decref(data);
        return status;
    }
}

/* A server address: a kixd's (tcp://, unix://) or a static copy's (http(s)://). */
static int open_server(const char *server, const struct cli_common *c, struct kix_client **out,
                       struct kix_err *err)
{
    struct kix_http_opts ho = {c->cacert, 0, 0, -1};
    return kix_client_open_addr(server, NULL, &ho, out, err);
}

int cli_connect(const char *cmd, const struct cli_common *c, struct kix_client **out)
{
    return cli_connect_ref(cmd, c, NULL, out);
}

int cli_connect_ref(const char *cmd, const struct cli_common *c, const char *ref,
                    struct kix_client **out)
{
    struct kix_err err = {0};
    const char *server = c->server ? c->server : getenv("KIX_SERVER");
    const struct kix_config *cfg;
    const char *runs = ref && kix_source_is_http(ref) ? strstr(ref, "/runs/") : NULL;
    char base[4096];
    int rc = KIX_OK, status = 0;

    if (!(cfg = config(cmd, &status)))
        return status;
    if (!(server && *server) && cfg->server[0])
        server = cfg->server; /* "server = ADDR" in the config file */

    if (!c->store && c->server && !*c->server)
        return cli_check_addr(cmd, ""); /* --server "": a usage error, not the default */
    if (!c->store && !(!c->server && runs) &&
        (status = cli_check_addr(cmd, server && *server ? server : KIX_DEFAULT_SERVER)))
        return status;
    prover_cacert = c->cacert;
    if (c->store) {
        rc = kix_client_open_store(c->store, out, &err);
    } else if (runs && (size_t)(runs - ref) + 2 < sizeof(prover_addr)) {
        /* a permalink read through another server (a copy): the
         * permalink's own log may prove that the copy is a prefix */
        snprintf(prover_addr, sizeof(prover_addr), "%.*s/", (int)(runs - ref), ref);
    }
    if (c->store) {
        /* opened above */
    } else if (!c->server && runs && (size_t)(runs - ref) + 2 < sizeof(base)) {
        /* the permalink's own log: what precedes runs/ */
        snprintf(base, sizeof(base), "%.*s/", (int)(runs - ref), ref);
        if ((status = cli_check_addr(cmd, base)))
            return status;
        rc = open_server(base, c, out, &err);
    } else {
        rc = open_server(server && *server ? server : KIX_DEFAULT_SERVER, c, out, &err);
    }
    return rc ? cli_fail(cmd, rc, &err) : 0;
}

/* A verifier key given as a file name or as the key text itself. */
static int read_key_arg(const char *cmd, const char *given, const char *what,
                        struct kix_verifier *out)
{
    struct kix_err err = {0};
    int rc = kix_trust_key_arg(given, "witness", what, out, &err);
    return rc ? cli_fail(cmd, rc, &err) : 0;
}

int cli_log_key(const char *cmd, const struct cli_common *c, struct kix_client *client,
                struct kix_verifier *out)
{
    struct kix_err err = {0};
    int status = load_witnesses(cmd, c), rc;

    if (status)
        return status;
    /* the index notes it proves records against are witnessed too */
    if (client)
        kix_client_require_witnesses(client, &witness_policy);
    rc = kix_trust_log_key(c->log_key, c->store ? client : NULL, out, &err);
    return rc ? cli_fail(cmd, rc, &err) : 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    /* 2^64-1 is no size, index or count of a log, and the API reads it as
     * "not given" (the latest checkpoint): kix_cmdline_u64 refuses it */
    return kix_cmdline_u64(s, out);
}

json_t *cli_jstr(const char *s, size_t len)
{
    struct kix_buf text = KIX_BUF_INIT;
    json_t *v = s ? json_stringn(s, len) : NULL;

    /* a file name or a quoted byte that is not UTF-8 keeps its place as
     * U+FFFD rather than emptying the whole string */
    if (!v && s && kix_utf8_scrub(s, len, "\xEF\xBF\xBD", &text) == KIX_OK)
        v = json_stringn(text.ptr ? (const char *)text.ptr : "", text.len);
    kix_buf_release(&text);
    return v ? v : json_string("");
}

/* CLI_EXIT_HELP after a command's help that does not say its exit
 * statuses itself. */
static void exit_statuses(FILE *f, const struct kix_cmd *cmd)
{
    int said = cmd->tail && strstr(cmd->tail, "exit status") != NULL;

    for (size_t i = 0; i < cmd->nopts && !said; i++)
        said = cmd->opts[i].help && strstr(cmd->opts[i].help, "exit status") != NULL;
    if (!said)
        fputs("\n" CLI_EXIT_HELP, f);
}

void cli_help(FILE *f, const struct kix_cmd *cmd)
{
    kix_cmdline_help(f, cmd);
    exit_statuses(f, cmd);
}

void cli_start(struct cli_opts *o, const struct kix_cmd *cmd, int argc, char **argv,
               struct cli_common *common)
{
    o->common = common;
    o->name = strncmp(cmd->prog, "kix ", 4) == 0 ? cmd->prog + 4 : cmd->prog;
    o->status = 0;
    if (common)
        cli_common_init(common);
    kix_cmdline_start(&o->p, cmd, argc, argv);
}

int cli_next(struct cli_opts *o)
{
    for (;;) {
        enum kix_cmdline_status st = kix_cmdline_next(&o->p);

        switch (st) {
        case KIX_CMDLINE_END:
            return CLI_OPTS_END;
        case KIX_CMDLINE_HELP: /* printed; then the exit statuses, unless it said them */
            exit_statuses(stdout, o->p.cmd);
            o->status = 0;
            return CLI_OPTS_STOP;
        case KIX_CMDLINE_DUMP:
            o->status = 0;
            return CLI_OPTS_STOP;
        case KIX_CMDLINE_OPTION:
            if (o->common && cli_common_option(o->common, o->p.opt->id, o->p.value))
                continue;
            return o->p.opt->id;
        case KIX_CMDLINE_BAD_U64:
            o->status =
                cli_usage_error(o->name, "--%s needs an integer from 0 to 2^64-2", o->p.opt->name);
            return CLI_OPTS_STOP;
        case KIX_CMDLINE_BAD: {
            char why[256];
            /* unknown: cli_bad_option's "did you mean", with the --json data;
             * known but used wrong: the engine's sentence, with the fix */
            if (kix_cmdline_explain(&o->p, st, why, sizeof(why)))
                o->status = cli_bad_option(o->name, o->p.argv, o->p.longopts);
            else
                o->status = cli_usage_error(o->name, "%s", why);
            return CLI_OPTS_STOP;
        }
        }
    }
}

int cli_dump_requested(int argc, char **argv)
{
    return argc == 2 && strcmp(argv[1], "--dump-options") == 0;
}

int cli_parse(const struct kix_cmd *cmd, int argc, char **argv, struct cli_common *common,
              uint64_t *size, uint64_t *from, uint64_t *limit)
{
    struct cli_opts o;
    int c;

    cli_start(&o, cmd, argc, argv, common);
    while ((c = cli_next(&o)) >= 0) {
        uint64_t *target = c == CLI_OPT_SIZE    ? size
                           : c == CLI_OPT_FROM  ? from
                           : c == CLI_OPT_LIMIT ? limit
                                                : NULL;
        if (!target)
            return cli_usage_error(o.name, "option '--%s' does not apply to %s", o.p.opt->name,
                                   cmd->prog);
        if (cli_parse_u64(o.p.value, target))
            return cli_usage_error(o.name, "--%s needs an integer from 0 to 2^64-2", o.p.opt->name);
    }
    return c == CLI_OPTS_STOP ? o.status : -1;
}
