/* kix-js-vectors — test vectors from kix's own C code for the browser
 * verifier (client/web/static/kix-verify.js), printed as JSON on stdout, so
 * that the node tests (tests/js/) hold the JavaScript to the C answers:
 *
 *   runRecords    run records (PROTOCOL.md §4.2) made by kix_vindex_run_encode,
 *                 valid and mutated, each with kix_vindex_run_decode's verdict
 *                 and, when valid, its fields;
 *   groupRecords  group pages (the first page) made by kix_vindex_page_begin
 *                 and kix_vindex_group_add, valid and mutated, with
 *                 kix_vindex_page_decode's verdict and members;
 *   groupDirs     group directories made by kix_vindex_group_begin and
 *                 kix_vindex_group_page_add, with kix_vindex_group_decode's
 *                 verdict and pages;
 *   smt           a sparse Merkle tree (kix/smt.h, stored as kixd stores it)
 *                 holding the valid run records, the group's directory and
 *                 first page and filler
 *                 keys: its root and proofs of membership and absence, real
 *                 and tampered, each with kix_smt_verify's verdict;
 *   manifestCanonical / manifestDigest: the manifest the "run-b" record names;
 *   groupRuns     the group's four members as a group view's rows carry them
 *                 (PROTOCOL.md, kix.group/1): run record, its proof in smt,
 *                 canonical manifest and implementation object ("" for run-b,
 *                 whose manifest names none);
 *   older         the index at an older size, before run-a joined the group
 *                 (run-b ranked 1 of 3): its root, and the records and
 *                 proofs of run-b, the group's directory and its page;
 *   indexFiles    the tree as a static copy's files (PROTOCOL.md §3.2): each
 *                 tile at index/tile/<hex key>/<hex top> and the records of
 *                 the run, group and member keys at index/value/<key>@<hash>
 *                 ({path, bytes}), for kix-verify.js's own proofs;
 *   human         values as kix_human (kix/view.h) writes them for people, in
 *                 ns and in bytes, across every unit boundary and rounding
 *                 step (kix-verify.js must write the same text);
 *   evidenceWords each evidence level in words (kix/doc.h's table), with a
 *                 rerun's observation day and without (kix-verify.js's
 *                 evidenceText must write the same).
 *
 * Bytes are lowercase hex; u64 fields decimal strings. Test-only.
 * Usage: kix-js-vectors [--entries-chain HEX] (run-b's entriesChain: the
 * chain of the test log's entries about it; 32 bytes 0xc4 without). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/digest.h"
#include "kix/encoding.h"
#include "kix/smt.h"
#include "kix/view.h"
#include "kix/vindex.h"
#include "smt_mem.h"

#define NONE UINT64_MAX

static const char manifest[] = "{\"kind\":\"BenchmarkRun\",\"runId\":\"run-b\"}";

static void hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static void print_id_field(const char *name, const char *v)
{
    printf(",\"%s\":\"%s\"", name, v);
}

static void print_u64_field(const char *name, uint64_t v)
{
    printf(",\"%s\":\"%llu\"", name, (unsigned long long)v);
}

/* One run record vector: the bytes, and what the C decoder makes of them. */
static void print_run(const char *name, const uint8_t *v, size_t len, int *first)
{
    struct kix_vindex_run r;
    struct kix_err err;
    int valid = kix_vindex_run_decode(v, len, "run-x", &r, &err) == KIX_OK;
    const struct kix_run_info *i = &r.info;

    printf("%s\n{\"name\":\"%s\",\"record\":\"", *first ? "" : ",", name);
    hex(v, len);
    printf("\",\"valid\":%s", valid ? "true" : "false");
    if (valid) {
        printf(",\"fields\":{\"manifest\":\"");
        hex(i->manifest.b, 32);
        printf("\",\"publisher\":\"");
        hex(i->publisher, 32);
        printf("\",\"comparisonKey\":\"");
        hex(i->comparison_key.b, 32);
        printf("\",\"entriesChain\":\"");
        hex(i->entries_chain.b, 32);
        printf("\",\"evidenceCode\":%d,\"grouped\":%s", i->evidence, i->grouped ? "true" : "false");
        print_u64_field("publication", i->publication_index);
        print_u64_field("evidenceIndex", i->evidence_index);
        print_u64_field("attestations", i->attestations);
        print_u64_field("reruns", i->reruns);
        print_u64_field("supersedesIndex", i->supersedes_index);
        print_id_field("predecessor", r.predecessor);
        print_u64_field("supersededByIndex", i->superseded_by_index);
        print_id_field("successor", r.successor);
        print_u64_field("withdrawnIndex", i->withdrawn_index);
        print_u64_field("value", i->value);
        print_u64_field("entries", i->entries);
        printf("}");
    }
    printf("}");
    *first = 0;
}

struct members {
    int first;
};

static int print_member(void *ctx, uint64_t rank, const char *run_id, uint64_t value)
{
    struct members *m = ctx;
    printf("%s{\"rank\":%llu,\"runId\":\"%s\",\"value\":\"%llu\"}", m->first ? "" : ",",
           (unsigned long long)rank, run_id, (unsigned long long)value);
    m->first = 0;
    return 0;
}

static void print_group(const char *name, const struct kix_digest *key, const uint8_t *v,
                        size_t len, int *first)
{
    struct kix_err err;
    struct members m = {1};
    char page_id[KIX_RUN_ID_MAX + 1];
    int valid = kix_vindex_page_decode(v, len, key, NULL, page_id, NULL, NULL, &err) == KIX_OK;

    printf("%s\n{\"name\":\"%s\",\"key\":\"", *first ? "" : ",", name);
    hex(key->b, 32);
    printf("\",\"record\":\"");
    hex(v, len);
    printf("\",\"valid\":%s", valid ? "true" : "false");
    if (valid) {
        printf(",\"members\":[");
        if (kix_vindex_page_decode(v, len, key, NULL, page_id, print_member, &m, &err) != KIX_OK)
            exit(3);
        printf("],\"pageId\":\"%s\"", page_id);
    }
    printf("}");
    *first = 0;
}

static int print_page(void *ctx, const struct kix_vindex_page *p)
{
    struct members *m = ctx;
    printf("%s{\"firstRank\":%llu,\"members\":%llu,\"firstRun\":\"%s\",\"firstValue\":\"%llu\"}",
           m->first ? "" : ",", (unsigned long long)p->first_rank, (unsigned long long)p->members,
           p->first_run, (unsigned long long)p->first_value);
    m->first = 0;
    return 0;
}

static void print_dir(const char *name, const struct kix_digest *key, const uint8_t *v, size_t len,
                      int *first)
{
    struct kix_err err;
    struct members m = {1};
    struct kix_vindex_dir d;
    int valid = kix_vindex_group_decode(v, len, key, &d, NULL, NULL, &err) == KIX_OK;

    printf("%s\n{\"name\":\"%s\",\"key\":\"", *first ? "" : ",", name);
    hex(key->b, 32);
    printf("\",\"record\":\"");
    hex(v, len);
    printf("\",\"valid\":%s", valid ? "true" : "false");
    if (valid) {
        printf(",\"count\":%llu,\"best\":\"%s\",\"bestValue\":\"%llu\",\"pages\":[",
               (unsigned long long)d.count, d.best, (unsigned long long)d.best_value);
        if (kix_vindex_group_decode(v, len, key, &d, print_page, &m, &err) != KIX_OK)
            exit(3);
        printf("]");
    }
    printf("}");
    *first = 0;
}

/* A directory of pages (members, first run, first value), count `count`. */
struct dir_page {
    uint64_t members;
    const char *first;
    uint64_t value;
};
static void dir_of(const struct kix_digest *key, uint64_t count, const struct dir_page *p, size_t n,
                   struct kix_buf *out)
{
    out->len = 0;
    if (kix_vindex_group_begin(key, count, n, out))
        exit(3);
    for (size_t i = 0; i < n; i++)
        if (kix_vindex_group_page_add(p[i].members, p[i].first, p[i].value, out))
            exit(3);
}

/* A group record of `n` members as given (in whatever order), count `count`. */
static void group_of(const struct kix_digest *key, uint64_t count, const char *const *ids,
                     const uint64_t *values, size_t n, struct kix_buf *out)
{
    out->len = 0;
    if (kix_vindex_page_begin(key, "", count, out))
        exit(3);
    for (size_t i = 0; i < n; i++)
        if (kix_vindex_group_add(ids[i], values[i], out))
            exit(3);
}

static void run_of(const struct kix_vindex_run *r, struct kix_buf *out)
{
    out->len = 0;
    if (kix_vindex_run_encode(r, out))
        exit(3);
}

/* The group's other members (run-b is the fixture's run): manifests that
 * name an implementation, with a median, p20, p80 and observation date. */
struct member {
    const char *run_id, *provider, *observed;
    uint64_t value, p20, p80;
    int reproduced;
    char manifest[640], implementation[160], key[KIX_VINDEX_KEY_MAX + 1];
    struct kix_buf record;
};

static void member_of(struct member *w, const struct kix_vindex_run *base)
{
    struct kix_vindex_run r = *base;
    struct kix_digest impl;
    char d[KIX_DIGEST_TEXT_LEN + 1];

    snprintf(w->implementation, sizeof(w->implementation),
             "{\"kind\":\"Implementation\",\"spec\":{\"name\":\"%s-kernel\",\"provider\":\"%s\"}}",
             w->provider, w->provider);
    kix_digest_of(w->implementation, strlen(w->implementation), &impl);
    kix_digest_format(&impl, d);
    snprintf(w->manifest, sizeof(w->manifest),
             "{\"kind\":\"BenchmarkRun\",\"runId\":\"%s\",\"spec\":{\"implementationDigest\":"
             "\"%s\",\"measurements\":[{\"metric\":\"latency\",\"statistic\":\"p20\","
             "\"value\":%llu},{\"metric\":\"latency\",\"statistic\":\"p80\",\"value\":%llu}],"
             "\"observedAt\":\"%s\",\"timing\":{\"latencyNs\":{\"median\":%llu}}}}",
             w->run_id, d, (unsigned long long)w->p20, (unsigned long long)w->p80, w->observed,
             (unsigned long long)w->value);
    kix_digest_of(w->manifest, strlen(w->manifest), &r.info.manifest);
    r.info.value = w->value;
    r.info.evidence = w->reproduced ? 1 : 0;
    r.info.evidence_index = w->reproduced ? 5 : NONE;
    r.info.reruns = w->reproduced ? 1 : 0;
    r.info.publication_index = 3;
    kix_vindex_key_run(w->run_id, strlen(w->run_id), w->key);
    w->record.len = 0;
    if (kix_vindex_run_encode(&r, &w->record))
        exit(3);
}

/* s as a JSON string (it holds no control character nor backslash). */
static void print_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

/* One SMT vector: kix_smt_verify's verdict on (key, record or absent, proof). */
static void print_smt(const char *name, const struct kix_hash *root, const char *key,
                      const uint8_t *rec, size_t rlen, const uint8_t *proof, size_t plen,
                      int *first)
{
    struct kix_hash path, vh;
    struct kix_err err;
    int valid;

    kix_smt_path(key, strlen(key), &path);
    if (rec)
        kix_smt_value_hash(rec, rlen, &vh);
    valid = kix_smt_verify(root, &path, rec ? &vh : NULL, proof, plen, &err) == KIX_OK;
    printf("%s\n{\"name\":\"%s\",\"key\":\"%s\",\"record\":", *first ? "" : ",", name, key);
    if (rec) {
        printf("\"");
        hex(rec, rlen);
        printf("\"");
    } else {
        printf("null");
    }
    printf(",\"proof\":\"");
    hex(proof, plen);
    printf("\",\"valid\":%s}", valid ? "true" : "false");
    *first = 0;
}

/* A membership proof of `key` rewritten as an absence proof whose "other
 * leaf" is the key's own: it leads to the root, and must still be refused. */
static void as_other_leaf(const char *key, const struct kix_buf *rec, const struct kix_buf *proof,
                          struct kix_buf *out)
{
    size_t head = 3 + ((size_t)(proof->ptr[1] << 8 | proof->ptr[2]) + 7) / 8;
    struct kix_hash path, vh;

    kix_smt_path(key, strlen(key), &path);
    kix_smt_value_hash(rec->ptr, rec->len, &vh);
    out->len = 0;
    if (kix_buf_add(out, proof->ptr, head) || kix_buf_add(out, path.b, 32) ||
        kix_buf_add(out, vh.b, 32) || kix_buf_add(out, proof->ptr + head, proof->len - head))
        exit(3);
    out->ptr[0] = KIX_SMT_OTHER;
}

static void prove(struct kix_smt_io *io, const char *key, struct kix_buf *proof)
{
    struct kix_hash path;
    struct kix_err err;
    int present;

    proof->len = 0;
    kix_smt_path(key, strlen(key), &path);
    if (kix_smt_prove(io, &path, proof, &present, NULL, &err)) {
        fprintf(stderr, "kix-js-vectors: %s\n", err.msg);
        exit(3);
    }
}

/* kix_human's text for values around every boundary it has (a unit's
 * step, the 10 and 100 where the decimals change, rounding up to them). */
static void print_human(void)
{
    /* 10250 and 102500: exact ties, which printf rounds to even */
    static const int64_t base[] = {
        10250,   102500,     100500,    12345,      1536,          0,         1,
        9,       99,         999,       1000,       1023,          1024,      1500,
        9994,    9995,       9999,      10000,      11360,         99949,     99950,
        99999,   100000,     999499,    999500,     999999,        1000000,   1048575,
        1048576, 1610612736, 123456789, 3600000000, 1099511627776, 5LL << 50, INT64_MAX};
    char h[KIX_HUMAN_MAX];
    int first = 1;

    printf(",\"human\":[");
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
        for (int sign = 1; sign >= -1; sign -= 2)
            for (int bytes = 0; bytes <= 1; bytes++) {
                int64_t v = sign * base[i];
                if (sign < 0 && base[i] == 0)
                    continue;
                kix_human(v, bytes, h, sizeof(h));
                printf("%s\n{\"value\":\"%lld\",\"bytes\":%s,\"text\":\"%s\"}", first ? "" : ",",
                       (long long)v, bytes ? "true" : "false", h);
                first = 0;
            }
    kix_human(INT64_MIN, 0, h, sizeof(h));
    printf(",\n{\"value\":\"%lld\",\"bytes\":false,\"text\":\"%s\"}]", (long long)INT64_MIN, h);
}

/* The evidence words, each level with a day and without. */
static void print_words(void)
{
    static const char day[] = "2026-10-01T12:00:00Z";
    char text[160];

    printf(",\n\"evidenceWords\":[");
    for (int i = 0; i < KIX_WORDS_EVIDENCE; i++)
        for (int dated = 0; dated <= 1; dated++) {
            kix_words_evidence_on(kix_words_table[i].level, dated ? day : "", text, sizeof(text));
            printf("%s\n{\"evidence\":\"%s\",\"observedAt\":\"%s\",\"text\":\"%s\","
                   "\"outcome\":\"%s\"}",
                   i || dated ? "," : "", kix_words_table[i].name, dated ? day : "", text,
                   kix_words_table[i].outcome);
        }
    printf("]");
}

/* One file of the tree as a static copy holds it (PROTOCOL.md §3.2):
 * index/tile/<hex key>/<hex top>, the stored tile value. */
static void print_index_tile(const struct ent *e, int *first)
{
    struct kix_hash top;
    char path[256];

    if (kix_smt_tile_top_hash(e->val, e->vlen, &top) != KIX_OK ||
        kix_index_file_tile_path(e->key, e->klen, &top, path, sizeof(path)) != KIX_OK)
        exit(3);
    printf("%s\n{\"path\":\"%s\",\"bytes\":\"", *first ? "" : ",", path);
    hex(e->val, e->vlen);
    printf("\"}");
    *first = 0;
}

/* index/value/<key>@<hex of SHA-256(record)>, the record. */
static void print_index_value(const char *key, const struct kix_buf *rec, int *first)
{
    struct kix_hash vh;
    char path[512];

    kix_smt_value_hash(rec->ptr, rec->len, &vh);
    if (kix_index_file_value_path(key, strlen(key), &vh, path, sizeof(path)) != KIX_OK)
        exit(3);
    printf("%s\n{\"path\":\"%s\",\"bytes\":\"", *first ? "" : ",", path);
    hex(rec->ptr, rec->len);
    printf("\"}");
    *first = 0;
}

/* The tree of the keys u[0..nu) and 40 fillers (u has room for them),
 * stored as kixd stores it in m, one key at a time (kix_smt_apply wants
 * sorted batches). */
static void grow_tree(struct kix_smt_tiles *tiles, struct map *m, struct kix_smt_update *u,
                      size_t nu, struct kix_hash *root)
{
    struct kix_err err;
    char filler[32];

    for (int i = 0; i < 40; i++) {
        snprintf(filler, sizeof(filler), "filler/%d", i);
        kix_smt_path(filler, strlen(filler), &u[nu].path);
        kix_smt_value_hash(filler, strlen(filler), &u[nu++].value_hash);
    }
    kix_smt_tiles_init(tiles, smt_map_get, smt_map_put, m);
    for (size_t i = 0; i < nu; i++)
        if (kix_smt_apply(&tiles->io, &u[i], 1, root, &err) || kix_smt_tiles_flush(tiles, &err)) {
            fprintf(stderr, "kix-js-vectors: %s\n", err.msg);
            exit(3);
        }
}

/* The same index at an older size, before run-a joined the group: run-b
 * ranked 1 of 3 (its record the same), as "older": the root and the
 * records and proofs of run-b, the group's directory and its page. */
static void print_older(const struct kix_digest *gkey, const char *const keys[4],
                        const struct kix_buf *run_b, const struct member *members, size_t n)
{
    static const char *const ids[] = {"run-b", "run-b2", "run-c"};
    static const uint64_t values[] = {700, 700, 700};
    static const struct dir_page one[] = {{3, "run-b", 700}};
    struct map m = {calloc(64, sizeof(struct ent)), 64, 0};
    struct kix_buf rec[3] = {KIX_BUF_INIT, KIX_BUF_INIT, KIX_BUF_INIT}, proof = KIX_BUF_INIT;
    struct kix_smt_update u[3 + 8 + 40];
    struct kix_smt_tiles tiles;
    struct kix_hash root;
    size_t nu = 0;

    if (!m.e || kix_buf_add(&rec[0], run_b->ptr, run_b->len))
        exit(3);
    dir_of(gkey, 3, one, 1, &rec[1]);
    group_of(gkey, 3, ids, values, 3, &rec[2]);
    for (int i = 0; i < 3; i++) {
        const char *key = keys[i == 0 ? 0 : i + 1]; /* run/run-b, the directory, its page */
        kix_smt_path(key, strlen(key), &u[nu].path);
        kix_smt_value_hash(rec[i].ptr, rec[i].len, &u[nu++].value_hash);
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(members[i].run_id, "run-a") == 0)
            continue;
        kix_smt_path(members[i].key, strlen(members[i].key), &u[nu].path);
        kix_smt_value_hash(members[i].record.ptr, members[i].record.len, &u[nu++].value_hash);
    }
    grow_tree(&tiles, &m, u, nu, &root);
    printf(",\n\"older\":{\"root\":\"");
    hex(root.b, 32);
    printf("\",\"proofs\":[");
    for (int i = 0; i < 3; i++) {
        const char *key = keys[i == 0 ? 0 : i + 1];
        prove(&tiles.io, key, &proof);
        printf("%s\n{\"key\":\"%s\",\"record\":\"", i ? "," : "", key);
        hex(rec[i].ptr, rec[i].len);
        printf("\",\"proof\":\"");
        hex(proof.ptr, proof.len);
        printf("\"}");
        kix_buf_release(&rec[i]);
    }
    printf("]}");
    kix_smt_tiles_release(&tiles);
    kix_buf_release(&proof);
    free(m.e);
}

int main(int argc, char **argv)
{
    static const char *const ids[] = {"run-a", "run-b", "run-b2", "run-c"};
    static const uint64_t values[] = {500, 700, 700, 700};
    struct kix_buf grp = KIX_BUF_INIT, proof = KIX_BUF_INIT, bad = KIX_BUF_INIT;
    struct kix_buf keep[4] = {KIX_BUF_INIT, KIX_BUF_INIT, KIX_BUF_INIT, KIX_BUF_INIT};
    const char *keep_keys[4] = {"run/run-b", "run/run-x", NULL, NULL};
    struct map m = {calloc(64, sizeof(struct ent)), 64, 0};
    struct kix_smt_tiles tiles;
    struct member members[] = {
        {"run-a", "liger", "2026-10-30T12:00:00Z", 500, 480, 530, 1, "", "", "", KIX_BUF_INIT},
        {"run-b2", "triton", "2026-10-31T08:30:00Z", 700, 690, 720, 0, "", "", "", KIX_BUF_INIT},
        {"run-c", "torch", "2026-11-03T23:59:59Z", 700, 650, 900, 0, "", "", "", KIX_BUF_INIT},
    };
    const size_t nmembers = sizeof(members) / sizeof(members[0]);
    struct kix_smt_update u[44 + sizeof(members) / sizeof(members[0])];
    struct kix_vindex_run b, x;
    struct kix_digest gkey, other;
    struct kix_hash root;
    char gname[KIX_VINDEX_KEY_MAX + 1], pname[KIX_VINDEX_KEY_MAX + 1], filler[32];
    size_t nu = 0, len;
    int first = 1;

    if (!m.e)
        return 3;
    kix_digest_of("group-key-vector", 16, &gkey);
    kix_digest_of("another-group", 13, &other);
    kix_vindex_key_group(&gkey, gname);
    kix_vindex_key_group_page(&gkey, "", pname);
    keep_keys[2] = gname;
    keep_keys[3] = pname;

    /* run-b: ranked in the group (rank 2 of 4), reproduced by entry 2 */
    memset(&b, 0, sizeof(b));
    kix_digest_of(manifest, strlen(manifest), &b.info.manifest);
    memset(b.info.publisher, 0x5a, 32);
    b.info.publication_index = 1;
    b.info.evidence = 1;
    b.info.evidence_index = 2;
    b.info.reruns = 1;
    b.info.attestations = 0;
    b.info.supersedes_index = NONE;
    b.info.superseded_by_index = NONE;
    b.info.withdrawn_index = NONE;
    b.info.grouped = 1;
    b.info.comparison_key = gkey;
    b.info.value = 700;
    b.info.entries = 2;
    memset(b.info.entries_chain.b, 0xc4, 32);
    /* --entries-chain HEX: the chain of the entries a test's log holds */
    if (argc == 3 && strcmp(argv[1], "--entries-chain") == 0 &&
        kix_hex_decode(argv[2], strlen(argv[2]), b.info.entries_chain.b, 32) != KIX_OK)
        return 2;
    /* run-x: superseded by run-b (unranked), itself a successor of run-0 */
    x = b;
    x.info.evidence = 0;
    x.info.evidence_index = NONE;
    x.info.reruns = 0;
    x.info.attestations = 3;
    x.info.publication_index = 9000000000ull;
    x.info.supersedes_index = 11;
    snprintf(x.predecessor, sizeof(x.predecessor), "run-0");
    x.info.superseded_by_index = 12;
    snprintf(x.successor, sizeof(x.successor), "run-b");
    x.info.grouped = 0;
    x.info.value = 0;

    printf("{\"manifestCanonical\":\"{\\\"kind\\\":\\\"BenchmarkRun\\\",\\\"runId\\\":"
           "\\\"run-b\\\"}\",\"manifestDigest\":\"sha256:");
    hex(b.info.manifest.b, 32);
    printf("\",\"groupKey\":\"%s\",\"groupPageKey\":\"%s\"", gname, pname);
    print_human();
    print_words();
    printf(",\n\"runRecords\":[");
    run_of(&b, &keep[0]);
    run_of(&x, &keep[1]);
    print_run("ranked", keep[0].ptr, keep[0].len, &first);
    print_run("superseded", keep[1].ptr, keep[1].len, &first);
    {
        /* run-w: run-b withdrawn at entry 13 (unranked until a reinstatement) */
        struct kix_vindex_run w = b;
        struct kix_buf wb = KIX_BUF_INIT;
        w.info.grouped = 0;
        w.info.value = 0;
        memset(w.info.comparison_key.b, 0, 32);
        w.info.withdrawn_index = 13;
        run_of(&w, &wb);
        print_run("withdrawn", wb.ptr, wb.len, &first);
        kix_buf_release(&wb);
    }
    /* mutations: C decides which still decode */
    len = keep[0].len;
    struct {
        const char *name;
        size_t at;    /* first byte to set; SIZE_MAX: none */
        size_t width; /* how many bytes from there */
        uint8_t to;
        long grow; /* bytes added (or removed) at the end */
        int from;  /* 0: ranked, 1: superseded */
    } muts[] = {
        {"wrong-tag", 0, 1, 0x02, 0, 0},
        {"truncated", SIZE_MAX, 0, 0, -1, 0},
        {"trailing-byte", SIZE_MAX, 0, 0, 1, 0},
        {"evidence-4", 73, 1, 4, 0, 0},
        {"evidence-3", 73, 1, 3, 0, 0},
        {"grouped-2", len - 89, 1, 2, 0, 0},
        {"ungrouped-with-key", len - 89, 1, 0, 0, 0},
        {"ungrouped-with-value", keep[1].len - 49, 1, 1, 0, 1},
        /* a run withdrawn (at entry 0) and ranked at once */
        {"withdrawn-and-ranked", len - 8, 8, 0, 0, 0},
        {"reruns-without-evidence-index", 97, 1, 0, 0, 0},
        {"publication-none", 65, 8, 0xff, 0, 1},
        {"predecessor-bad-char", 107, 1, '/', 0, 1},
        {"predecessor-high-byte", 108, 1, 0xc3, 0, 1},
        {"predecessor-empty-with-index", 106, 1, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
        const struct kix_buf *src = &keep[muts[i].from];
        bad.len = 0;
        if (kix_buf_add(&bad, src->ptr, src->len) || kix_buf_addc(&bad, 0))
            return 3;
        bad.len = src->len + (size_t)muts[i].grow;
        if (muts[i].at != SIZE_MAX)
            memset(bad.ptr + muts[i].at, muts[i].to, muts[i].width);
        print_run(muts[i].name, bad.ptr, bad.len, &first);
    }

    printf("],\n\"groupRecords\":[");
    first = 1;
    group_of(&gkey, 4, ids, values, 4, &keep[3]);
    print_group("four", &gkey, keep[3].ptr, keep[3].len, &first);
    group_of(&gkey, 0, ids, values, 0, &grp);
    print_group("empty", &gkey, grp.ptr, grp.len, &first);
    print_group("another-key", &other, keep[3].ptr, keep[3].len, &first);
    {
        static const char *const swapped[] = {"run-b", "run-a"}, *const tie[] = {"run-c", "run-b"},
                                 *const prefix[] = {"run-b2", "run-b"},
                                 *const dup[] = {"run-a", "run-a"}, *const empty[] = {""},
                                 *const slash[] = {"run/a"};
        static const uint64_t v2[] = {700, 500}, same[] = {700, 700}, one[] = {1};
        static const struct {
            const char *name;
            uint64_t count; /* the count written, whatever the members */
            const char *const *ids;
            const uint64_t *values;
            size_t n;
        } bad_groups[] = {
            {"value-order", 2, swapped, v2, 2},    {"tie-order", 2, tie, same, 2},
            {"prefix-order", 2, prefix, same, 2},  {"duplicate", 2, dup, same, 2},
            {"empty-id", 1, empty, one, 1},        {"bad-id", 1, slash, one, 1},
            {"count-too-high", 5, ids, values, 4}, {"count-too-low", 3, ids, values, 4},
        };
        for (size_t i = 0; i < sizeof(bad_groups) / sizeof(bad_groups[0]); i++) {
            group_of(&gkey, bad_groups[i].count, bad_groups[i].ids, bad_groups[i].values,
                     bad_groups[i].n, &grp);
            print_group(bad_groups[i].name, &gkey, grp.ptr, grp.len, &first);
        }
        {
            /* a full page (KIX_VINDEX_PAGE_MAX members, no id starting a
             * page by the hash rule), and one member more */
            static char full_ids[KIX_VINDEX_PAGE_MAX + 1][32];
            static const char *full_ptrs[KIX_VINDEX_PAGE_MAX + 1];
            static uint64_t full_values[KIX_VINDEX_PAGE_MAX + 1];
            for (int i = 0, nonce = 0; i <= (int)KIX_VINDEX_PAGE_MAX; i++) {
                do
                    snprintf(full_ids[i], sizeof(full_ids[i]), "m-%04d-%d", i, nonce++);
                while (kix_vindex_page_starts(full_ids[i], strlen(full_ids[i])));
                full_ptrs[i] = full_ids[i];
                full_values[i] = 100 + (uint64_t)i;
            }
            group_of(&gkey, KIX_VINDEX_PAGE_MAX, full_ptrs, full_values, KIX_VINDEX_PAGE_MAX, &grp);
            print_group("full", &gkey, grp.ptr, grp.len, &first);
            group_of(&gkey, KIX_VINDEX_PAGE_MAX + 1, full_ptrs, full_values,
                     KIX_VINDEX_PAGE_MAX + 1, &grp);
            print_group("over-full", &gkey, grp.ptr, grp.len, &first);
        }
        group_of(&gkey, 4, ids, values, 4, &grp);
        grp.ptr[0] = 0x01;
        print_group("wrong-tag", &gkey, grp.ptr, grp.len, &first);
        grp.ptr[0] = 0x02;
        grp.len--;
        print_group("truncated", &gkey, grp.ptr, grp.len, &first);
    }

    printf("],\n\"groupDirs\":[");
    first = 1;
    {
        static const struct dir_page one[] = {{4, "run-a", 500}}, empty[] = {{0, "", 0}},
                                     two[] = {{0, "", 0}, {4, "run-a", 500}},
                                     zero_later[] = {{4, "run-a", 500}, {0, "", 0}},
                                     value_in_empty[] = {{0, "", 7}};
        dir_of(&gkey, 4, one, 1, &keep[2]);
        print_dir("four", &gkey, keep[2].ptr, keep[2].len, &first);
        dir_of(&gkey, 0, empty, 1, &grp);
        print_dir("empty", &gkey, grp.ptr, grp.len, &first);
        print_dir("another-key", &other, keep[2].ptr, keep[2].len, &first);
        dir_of(&gkey, 5, one, 1, &grp);
        print_dir("count-too-high", &gkey, grp.ptr, grp.len, &first);
        dir_of(&gkey, 3, one, 1, &grp);
        print_dir("count-too-low", &gkey, grp.ptr, grp.len, &first);
        dir_of(&gkey, 4, two, 2, &grp); /* run-a does not start a page */
        print_dir("second-page-not-a-start", &gkey, grp.ptr, grp.len, &first);
        {
            /* after a full page the next starts at any run (run-a starts
             * none by the hash rule); after a shorter one it may not */
            const struct dir_page after_full[] = {{KIX_VINDEX_PAGE_MAX, "m-0000", 100},
                                                  {4, "run-a", 500}},
                                  after_short[] = {{KIX_VINDEX_PAGE_MAX - 1, "m-0000", 100},
                                                   {4, "run-a", 500}},
                                  over_full[] = {{KIX_VINDEX_PAGE_MAX + 1, "m-0000", 100}};
            dir_of(&gkey, KIX_VINDEX_PAGE_MAX + 4, after_full, 2, &grp);
            print_dir("after-a-full-page", &gkey, grp.ptr, grp.len, &first);
            dir_of(&gkey, KIX_VINDEX_PAGE_MAX + 3, after_short, 2, &grp);
            print_dir("after-a-short-page", &gkey, grp.ptr, grp.len, &first);
            dir_of(&gkey, KIX_VINDEX_PAGE_MAX + 1, over_full, 1, &grp);
            print_dir("page-over-full", &gkey, grp.ptr, grp.len, &first);
        }
        dir_of(&gkey, 4, zero_later, 2, &grp);
        print_dir("empty-later-page", &gkey, grp.ptr, grp.len, &first);
        dir_of(&gkey, 0, value_in_empty, 1, &grp);
        print_dir("value-in-empty-page", &gkey, grp.ptr, grp.len, &first);
        dir_of(&gkey, 0, empty, 0, &grp);
        print_dir("no-page", &gkey, grp.ptr, grp.len, &first);
        dir_of(&gkey, 4, one, 1, &grp);
        grp.ptr[0] = 0x05;
        print_dir("wrong-tag", &gkey, grp.ptr, grp.len, &first);
        grp.ptr[0] = 0x02;
        grp.len--;
        print_dir("truncated", &gkey, grp.ptr, grp.len, &first);
    }

    /* the tree: the two runs, the group's directory and page, the group's
     * other members, 40 fillers */
    for (int i = 0; i < 4; i++) {
        kix_smt_path(keep_keys[i], strlen(keep_keys[i]), &u[nu].path);
        kix_smt_value_hash(keep[i].ptr, keep[i].len, &u[nu++].value_hash);
    }
    for (size_t i = 0; i < nmembers; i++) {
        member_of(&members[i], &b);
        kix_smt_path(members[i].key, strlen(members[i].key), &u[nu].path);
        kix_smt_value_hash(members[i].record.ptr, members[i].record.len, &u[nu++].value_hash);
    }
    grow_tree(&tiles, &m, u, nu, &root);
    printf("],\n\"smt\":{\"root\":\"");
    hex(root.b, 32);
    printf("\",\"proofs\":[");
    first = 1;
    for (int i = 0; i < 4; i++) {
        prove(&tiles.io, keep_keys[i], &proof);
        print_smt("member", &root, keep_keys[i], keep[i].ptr, keep[i].len, proof.ptr, proof.len,
                  &first);
        print_smt("member-as-absent", &root, keep_keys[i], NULL, 0, proof.ptr, proof.len, &first);
        print_smt("member-wrong-record", &root, keep_keys[i], keep[(i + 1) % 4].ptr,
                  keep[(i + 1) % 4].len, proof.ptr, proof.len, &first);
        print_smt("member-wrong-key", &root, keep_keys[(i + 1) % 4], keep[i].ptr, keep[i].len,
                  proof.ptr, proof.len, &first);
        proof.ptr[proof.len - 1] ^= 0x01;
        print_smt("member-sibling-flipped", &root, keep_keys[i], keep[i].ptr, keep[i].len,
                  proof.ptr, proof.len, &first);
        proof.ptr[proof.len - 1] ^= 0x01;
        memset(proof.ptr + proof.len - 32, 0, 32);
        print_smt("member-sibling-zeroed", &root, keep_keys[i], keep[i].ptr, keep[i].len, proof.ptr,
                  proof.len, &first);
        print_smt("member-truncated", &root, keep_keys[i], keep[i].ptr, keep[i].len, proof.ptr,
                  proof.len - 1, &first);
        prove(&tiles.io, keep_keys[i], &proof);
        as_other_leaf(keep_keys[i], &keep[i], &proof, &bad);
        print_smt("member-as-other-leaf", &root, keep_keys[i], NULL, 0, bad.ptr, bad.len, &first);
    }
    for (int i = 0; i < 6; i++) {
        snprintf(filler, sizeof(filler), "run/absent-%d", i);
        prove(&tiles.io, filler, &proof);
        print_smt("absent", &root, filler, NULL, 0, proof.ptr, proof.len, &first);
        print_smt("absent-with-record", &root, filler, keep[0].ptr, keep[0].len, proof.ptr,
                  proof.len, &first);
        print_smt("absent-wrong-key", &root, keep_keys[0], NULL, 0, proof.ptr, proof.len, &first);
        proof.ptr[proof.len - 1] ^= 0x80;
        print_smt("absent-flipped", &root, filler, NULL, 0, proof.ptr, proof.len, &first);
        proof.ptr[proof.len - 1] ^= 0x80;
        if (proof.ptr[0] == KIX_SMT_OTHER) { /* the other leaf's path changed */
            proof.ptr[3 + ((proof.ptr[1] << 8 | proof.ptr[2]) + 7) / 8 + 31] ^= 0x01;
            print_smt("absent-other-leaf-moved", &root, filler, NULL, 0, proof.ptr, proof.len,
                      &first);
        }
    }
    {
        /* the group has no withdrawn run: its withdrawn/<hex> key is absent */
        char wname[KIX_VINDEX_KEY_MAX + 1];
        kix_vindex_key_withdrawn(&gkey, wname);
        prove(&tiles.io, wname, &proof);
        print_smt("withdrawn-absent", &root, wname, NULL, 0, proof.ptr, proof.len, &first);
    }
    printf("]},\n\"groupRuns\":[");
    prove(&tiles.io, keep_keys[0], &proof);
    printf("\n{\"runId\":\"run-b\",\"record\":\"");
    hex(keep[0].ptr, keep[0].len);
    printf("\",\"proof\":\"");
    hex(proof.ptr, proof.len);
    printf("\",\"manifestCanonical\":");
    print_string(manifest);
    printf(",\"implementationCanonical\":\"\"}");
    for (size_t i = 0; i < nmembers; i++) {
        prove(&tiles.io, members[i].key, &proof);
        printf(",\n{\"runId\":\"%s\",\"record\":\"", members[i].run_id);
        hex(members[i].record.ptr, members[i].record.len);
        printf("\",\"proof\":\"");
        hex(proof.ptr, proof.len);
        printf("\",\"manifestCanonical\":");
        print_string(members[i].manifest);
        printf(",\"implementationCanonical\":");
        print_string(members[i].implementation);
        printf("}");
    }
    printf("]");
    print_older(&gkey, keep_keys, &keep[0], members, nmembers);
    printf(",\n\"indexFiles\":[");
    first = 1;
    for (size_t i = 0; i < m.cap; i++)
        if (m.e[i].klen)
            print_index_tile(&m.e[i], &first);
    for (int i = 0; i < 4; i++)
        print_index_value(keep_keys[i], &keep[i], &first);
    for (size_t i = 0; i < nmembers; i++)
        print_index_value(members[i].key, &members[i].record, &first);
    printf("]}\n");
    for (size_t i = 0; i < nmembers; i++)
        kix_buf_release(&members[i].record);
    kix_smt_tiles_release(&tiles);
    for (int i = 0; i < 4; i++)
        kix_buf_release(&keep[i]);
    kix_buf_release(&grp);
    kix_buf_release(&proof);
    kix_buf_release(&bad);
    free(m.e);
    return 0;
}
