/* kix key list: the log's key registry, recomputed from the log's own key
 * entries (each checked against the verified checkpoint's root), with the
 * key id in every form a user meets: the log's 64-hex id, its 16-hex short
 * form (what every kix message prints) and, where the name is known (the
 * log key, or a PUBFILE given), the C2SP note key hash of the .pub file. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kix/client.h"
#include "kix/encoding.h"
#include "kix/entry.h"
#include "kix/merkle.h"
#include "kix/note.h"

#define KEYS_MAX_PUBFILES 64

struct key_row {
    uint8_t id[32];
    uint8_t pub[32];
    unsigned roles;
    uint64_t added, roles_changed, revoked; /* KIX_NO_INDEX: never */
    const struct kix_verifier *named;       /* the PUBFILE (or log key) naming it */
};

struct key_scan {
    struct kix_hash *leaves;
    uint64_t n, cap;
    struct key_row *rows;
    size_t nrows, rowcap;
    int failed;
};

static struct key_row *row_of(struct key_scan *k, const uint8_t id[32])
{
    struct key_row *grown;

    for (size_t i = 0; i < k->nrows; i++)
        if (memcmp(k->rows[i].id, id, 32) == 0)
            return &k->rows[i];
    if (k->nrows == k->rowcap) {
        size_t cap = k->rowcap ? 2 * k->rowcap : 16;
        if (!(grown = realloc(k->rows, cap * sizeof(*grown))))
            return NULL;
        k->rows = grown;
        k->rowcap = cap;
    }
    memset(&k->rows[k->nrows], 0, sizeof(k->rows[0]));
    memcpy(k->rows[k->nrows].id, id, 32);
    k->rows[k->nrows].added = k->rows[k->nrows].roles_changed = KIX_NO_INDEX;
    k->rows[k->nrows].revoked = KIX_NO_INDEX;
    return &k->rows[k->nrows++];
}

static int scan_entry(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    struct key_scan *k = ctx;
    struct kix_entry_summary s;
    struct key_row *r;

    if (k->n == k->cap) {
        uint64_t cap = k->cap ? 2 * k->cap : 1024;
        struct kix_hash *grown = realloc(k->leaves, cap * sizeof(*grown));
        if (!grown)
            return k->failed = KIX_ENOMEM;
        k->leaves = grown;
        k->cap = cap;
    }
    kix_merkle_leaf_hash(leaf, len, &k->leaves[k->n++]);
    if (kix_entry_describe(leaf, len, &s, NULL) != KIX_OK || s.type != KIX_ENTRY_KEY)
        return 0;
    if (!(r = row_of(k, s.subject.b)))
        return k->failed = KIX_ENOMEM;
    if (s.key_revoke) {
        r->revoked = index;
    } else if (r->added == KIX_NO_INDEX) {
        r->added = index;
        r->roles = s.key_roles;
    } else {
        r->roles_changed = index;
        r->roles = s.key_roles;
    }
    return 0;
}

static const struct kix_opt key_list_opts[] = {
    KIX_NOTE("\n"
             "Lists the log's keys, recomputed from the log's key entries, which are\n"
             "checked against the verified latest checkpoint: state (live or revoked),\n"
             "roles, the log index that added the key, last changed its roles and\n"
             "revoked it. Each key is shown by its short id (the first 16 hex digits,\n"
             "the form every kix message uses) and its full 64-hex id (SHA-256 of the\n"
             "public key). The log does not record names: the log key, and each key\n"
             "whose PUBFILE (PREFIX.pub from kix keygen) is given, is also shown with\n"
             "its name and the C2SP note key hash the .pub file shows (NAME+HASH+...).\n"
             "With --json, the document kix.keys/1 {\"view\": ..., \"size\": the log size\n"
             "read, \"keys\": [...]}, a key\n"
             "each: keyId, shortId, name and noteKeyHash (when known), live, roles, added,\n"
             "rolesChanged, revoked (null when not).\n"
             "\n"),
    CLI_COMMON_OPTS,
};
static const struct kix_cmd key_list_cmd = {.prog = "kix key list",
                                            .usage = "[options] [--json] [PUBFILE...]",
                                            KIX_CMD_OPTS(key_list_opts)};

int cmd_key_list(int argc, char **argv)
{
    struct cli_common common;
    struct kix_client *cl = NULL;
    struct kix_verifier key, named[KEYS_MAX_PUBFILES];
    struct kix_buf note = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    struct kix_err err = {0};
    struct key_scan k = {0};
    struct kix_doc_key *docs = NULL;
    struct kix_hash root;
    uint64_t got = 0;
    size_t nnamed = 0;
    int status = cli_parse(&key_list_cmd, argc, argv, &common, NULL, NULL, NULL);
    int rc = KIX_OK;

    if (status >= 0)
        return status;
    if (argc - optind > KEYS_MAX_PUBFILES)
        return cli_usage_error("key list", "at most %d PUBFILEs", KEYS_MAX_PUBFILES);
    for (int i = optind; rc == KIX_OK && i < argc; i++)
        rc = kix_pubfile_read(argv[i], &named[nnamed++], &err);
    if (rc)
        return cli_fail("key list", rc, &err);
    if ((status = cli_connect("key list", &common, &cl)))
        return status;
    if ((status = cli_contact("key list", &common, cl, &key, CLI_CONTACT_READ, NULL)))
        goto out;
    rc = cli_trust_latest(cl, &key, &note, &cp, &err);
    if (rc == KIX_OK)
        rc = kix_client_entries(cl, 0, cp.size, scan_entry, &k, &got, &err);
    if (rc == KIX_OK && k.failed)
        rc = kix_err_set(&err, k.failed, "out of memory reading the key entries");
    if (rc == KIX_OK && got != cp.size)
        rc = kix_err_set(&err, KIX_EPROTO, "the log at %s sent %" PRIu64 " of %" PRIu64 " entries",
                         kix_client_where(cl), got, cp.size);
    if (rc == KIX_OK) {
        kix_merkle_root(k.leaves, k.n, &root);
        if (memcmp(root.b, cp.root, 32) != 0)
            rc = kix_err_set(&err, KIX_EVERIFY,
                             "the entries from %s do not hash to the checkpoint's root at size "
                             "%" PRIu64,
                             kix_client_where(cl), cp.size);
    }
    if (rc) {
        status = cli_fail("key list", rc, &err);
        goto out;
    }
    docs = k.nrows ? calloc(k.nrows, sizeof(*docs)) : NULL;
    if (k.nrows && !docs) {
        status = cli_fail("key list", KIX_ENOMEM, NULL);
        goto out;
    }
    for (size_t i = 0; i < k.nrows; i++) {
        struct key_row *r = &k.rows[i];
        char hex[KIX_KEY_ID_HEX_LEN + 1], want[65];
        kix_hex_encode(r->id, 32, want);
        kix_key_id(key.pub, hex);
        if (strcmp(hex, want) == 0)
            r->named = &key;
        for (size_t j = 0; j < nnamed; j++) {
            kix_key_id(named[j].pub, hex);
            if (strcmp(hex, want) == 0)
                r->named = &named[j];
        }
        memcpy(docs[i].id, r->id, 32);
        docs[i].name = r->named ? r->named->name : NULL;
        docs[i].note_key_hash = r->named ? r->named->key_hash : 0;
        docs[i].roles = r->roles;
        docs[i].added = r->added;
        docs[i].roles_changed = r->roles_changed;
        docs[i].revoked = r->revoked;
    }
    /* one document (kix/doc.h): the JSON, or its text */
    status =
        cli_doc("key list", kix_doc_keys(cp.size, docs, k.nrows), common.json, kix_doc_keys_text);
out:
    free(docs);
    free(k.leaves);
    free(k.rows);
    kix_buf_release(&note);
    kix_client_close(cl);
    return status;
}

/* ---- the enrolment queue (kixd's POST /enroll): pending key requests ----------------------- */

/* The request of the queue whose key id begins with `id` (8 to 64 hex
 * digits): its path without ".json" into out. KIX_ENOTFOUND, or KIX_EINVAL
 * when the prefix names more than one. */
int cli_enroll_find(const char *queue, const char *id, char *out, size_t cap, struct kix_err *err)
{
    size_t n = strlen(id), found = 0;
    DIR *d;
    struct dirent *e;

    if (n < 8 || n > 64 || strspn(id, "0123456789abcdef") != n)
        return kix_err_set(err, KIX_EINVAL,
                           "\"%s\" is no key id: give 8 to 64 lowercase hex digits, as kix key "
                           "pending lists them",
                           id);
    if (!(d = opendir(queue)))
        return kix_err_set(err, KIX_ENOTFOUND, "cannot read the enrolment queue %s: %s", queue,
                           strerror(errno));
    while ((e = readdir(d)) != NULL)
        if (strlen(e->d_name) == 69 && strcmp(e->d_name + 64, ".json") == 0 &&
            strncmp(e->d_name, id, n) == 0) {
            snprintf(out, cap, "%s/%.64s", queue, e->d_name);
            found++;
        }
    closedir(d);
    if (found == 0)
        return kix_err_set(err, KIX_ENOTFOUND,
                           "no pending request of key %s in %s (kix key pending)", id, queue);
    if (found > 1)
        return kix_err_set(err, KIX_EINVAL, "%zu pending requests begin with %s: give more digits",
                           found, id);
    return KIX_OK;
}

static int pending_opts(const char *cmd, int argc, char **argv, const char **queue, int *json)
{
    const struct kix_opt opts[] = {
        KIX_NOTE(
            "\n"
            "The enrolment queue: keys that asked the log's admin for roles over\n"
            "kixd's POST /enroll, kept outside the log in the directory kixd serve's\n"
            "enroll-dir option names (STORE/enroll). pending lists each request: the key id, the\n"
            "roles asked for, when, from which address, its note and key line. An admin\n"
            "approves one with kix key approve (a normal key entry, as kix key add) and\n"
            "drops one with kix key reject. With --json, {\"pending\": [{keyId, key,\n"
            "roles, note, requestedAt, from}, ...]}.\n"
            "\n"),
        KIX_STRING("queue", "DIR", queue, "the enrolment queue (kixd serve's enroll-dir)"),
        KIX_FLAG("json", json, "one JSON object"),
    };
    const struct kix_cmd table = {.prog = "kix key pending",
                                  .usage = "--queue DIR [--json]\n"
                                           "kix key reject --queue DIR KEYID",
                                  KIX_CMD_OPTS(opts),
                                  .column = 14};
    struct cli_opts o;
    int c;

    *queue = NULL;
    *json = 0;
    cli_start(&o, &table, argc, argv, NULL);
    o.name = cmd;
    while ((c = cli_next(&o)) >= 0)
        ;
    if (c == CLI_OPTS_STOP)
        return o.status;
    if (!*queue)
        return cli_usage_error(cmd,
                               "give --queue DIR (kixd serve --enroll-dir, default STORE/enroll)");
    return -1;
}

static const char *member(const json_t *r, const char *name)
{
    const char *v = json_string_value(json_object_get(r, name));
    return v ? v : "?";
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int cmd_key_pending(int argc, char **argv)
{
    const char *queue = NULL;
    struct dirent **names = NULL;
    int json = 0, status = pending_opts("key pending", argc, argv, &queue, &json), n, shown = 0;
    json_t *pending;

    if (status >= 0)
        return status;
    if (optind != argc)
        return cli_usage_error("key pending", "expected no arguments");
    n = scandir(queue, &names, NULL, by_name);
    if (n < 0 && errno != ENOENT) {
        struct kix_err err = {0};
        kix_err_set(&err, KIX_EIO, "cannot read the enrolment queue %s: %s", queue,
                    strerror(errno));
        return cli_fail("key pending", KIX_EIO, &err);
    }
    pending = json_array();
    for (int i = 0; i < n; i++) {
        char path[4200];
        size_t len = strlen(names[i]->d_name);
        json_t *r;
        if (len != 69 || strcmp(names[i]->d_name + 64, ".json") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", queue, names[i]->d_name);
        if (!(r = json_load_file(path, JSON_REJECT_DUPLICATES, NULL)))
            continue;
        if (json) {
            json_array_append(pending, r);
        } else {
            printf("%.16s  %s  asked %s from %s\n  key %s\n", names[i]->d_name, member(r, "roles"),
                   member(r, "requestedAt"), member(r, "from"), member(r, "key"));
            if (json_string_length(json_object_get(r, "note")))
                printf("  note %s\n", json_string_value(json_object_get(r, "note")));
        }
        shown++;
        json_decref(r);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (json) {
        json_t *doc = pending ? json_pack("{s:o}", "pending", pending) : NULL;
        pending = NULL;
        status = kix_doc_print(doc, KIX_DOC_SORTED, stdout) ? EXIT_INTERNAL : 0;
        json_decref(doc);
        return status;
    }
    json_decref(pending);
    if (!shown)
        printf("no pending requests in %s\n", queue);
    return 0;
}

int cmd_key_reject(int argc, char **argv)
{
    const char *queue = NULL;
    char base[4200], path[4300];
    struct kix_err err = {0};
    int json = 0, rc, status = pending_opts("key reject", argc, argv, &queue, &json);

    if (status >= 0)
        return status;
    if (optind + 1 != argc)
        return cli_usage_error("key reject", "expected one KEYID (kix key pending lists them)");
    rc = cli_enroll_find(queue, argv[optind], base, sizeof(base), &err);
    if (rc)
        return cli_fail("key reject", rc, &err);
    snprintf(path, sizeof(path), "%s.json", base);
    unlink(path);
    snprintf(path, sizeof(path), "%s.pub", base);
    unlink(path);
    if (json) {
        json_t *doc = json_pack("{s:s}", "rejected", strrchr(base, '/') + 1);
        status = kix_doc_print(doc, 0, stdout) ? EXIT_INTERNAL : 0;
        json_decref(doc);
        return status;
    } else
        printf("rejected the request of key %.16s\n", strrchr(base, '/') + 1);
    return 0;
}
