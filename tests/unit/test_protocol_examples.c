/* The worked examples of proto/PROTOCOL.md section 2: each is built here
 * with the message codec kixd and the client use (kix/messages.h) from real
 * values (a fixed log key, signed checkpoints, a receipt that verifies) and
 * must appear byte for byte in
 * the document under its `<!-- example NAME -->` marker. With the
 * environment variable KIX_PRINT_EXAMPLES set, the `print` case writes the
 * markdown of every example to stdout instead. */
#include "harness.h"
#include "kix/digest.h"
#include "kix/merkle.h"
#include "kix/messages.h"
#include "kix/note.h"
#include "kix/proto.h"
#include "kix/receipt.h"

#define ORIGIN "log.example"

struct ex {
    struct kix_signer *key;
    struct kix_signer *witness; /* seed 0x21 … 0x40, named witness.example */
    char cosig[256];            /* its cosignature of note2 at time 1700000000 */
    char held[256];             /* its held statement of note2 at that time (a mirror's) */
    char note2_cosigned[768];
    char vkey[256];
    char note2[512], note1[512]; /* checkpoints at sizes 2 and 1 */
    struct kix_hash h0, h1;      /* leaf hashes of "e0", "e1" */
    char receipt[2048];
    char empty_digest[KIX_DIGEST_TEXT_LEN + 1];
};

static const char zero_digest[] =
    "sha256:0000000000000000000000000000000000000000000000000000000000000000";

static void ex_init(struct ex *e)
{
    uint8_t seed[32];
    struct kix_buf b = KIX_BUF_INIT;
    struct kix_checkpoint cp;
    struct kix_hash root;
    struct kix_digest d;

    memset(e, 0, sizeof(*e));
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(i + 1);
    if (kix_signer_from_seed(ORIGIN, KIX_NOTE_ALG_ED25519, seed, &e->key, NULL) ||
        kix_signer_format_verifier(e->key, &b))
        abort();
    snprintf(e->vkey, sizeof(e->vkey), "%s", (const char *)b.ptr);
    kix_buf_reset(&b);
    kix_merkle_leaf_hash("e0", 2, &e->h0);
    kix_merkle_leaf_hash("e1", 2, &e->h1);
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.origin, sizeof(cp.origin), ORIGIN);
    cp.size = 2;
    kix_merkle_node_hash(&e->h0, &e->h1, &root);
    memcpy(cp.root, root.b, 32);
    if (kix_checkpoint_sign(&cp, e->key, &b, NULL))
        abort();
    snprintf(e->note2, sizeof(e->note2), "%s", (const char *)b.ptr);
    kix_buf_reset(&b);
    cp.size = 1;
    memcpy(cp.root, e->h0.b, 32);
    if (kix_checkpoint_sign(&cp, e->key, &b, NULL))
        abort();
    snprintf(e->note1, sizeof(e->note1), "%s", (const char *)b.ptr);
    kix_buf_reset(&b);
    if (kix_receipt_format(1, &e->h0, 1, (const uint8_t *)"e1", 2, e->note2, strlen(e->note2), &b))
        abort();
    snprintf(e->receipt, sizeof(e->receipt), "%s", (const char *)b.ptr);
    kix_buf_release(&b);
    kix_digest_of("{}", 2, &d);
    kix_digest_format(&d, e->empty_digest);
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(0x21 + i);
    kix_buf_init(&b);
    /* the text of note2 is everything before its blank line */
    if (kix_signer_from_seed("witness.example", KIX_NOTE_ALG_COSIGN, seed, &e->witness, NULL) ||
        kix_cosign(e->witness, e->note2, (size_t)(strstr(e->note2, "\n\n") - e->note2 + 1),
                   1700000000, &b, NULL))
        abort();
    snprintf(e->cosig, sizeof(e->cosig), "%s", (const char *)b.ptr);
    kix_buf_reset(&b);
    if (kix_mirror_held_sign(e->witness, e->note2,
                             (size_t)(strstr(e->note2, "\n\n") - e->note2 + 1), 1700000000, &b,
                             NULL))
        abort();
    snprintf(e->held, sizeof(e->held), "%s", (const char *)b.ptr);
    snprintf(e->note2_cosigned, sizeof(e->note2_cosigned), "%s%s", e->note2, e->cosig);
    kix_buf_release(&b);
}

static void ex_release(struct ex *e)
{
    kix_signer_free(e->key);
    kix_signer_free(e->witness);
}

/* The digest of a short text, as a stand-in (a comparison group key). */
static void text_digest(const char *text, char out[KIX_DIGEST_TEXT_LEN + 1])
{
    struct kix_digest d;
    kix_digest_of(text, strlen(text), &d);
    kix_digest_format(&d, out);
}

/* A view of a C string. */
static struct kix_bytes T(const char *s) {
    struct kix_bytes b = {(const uint8_t *)s, strlen(s)};
    return b;
}

static void
digest_bytes(const char *text, uint8_t out[32])
{
    struct kix_digest d;
    if (kix_digest_parse(text, strlen(text), &d, NULL))
        abort();
    memcpy(out, d.b, 32);
}

/* What kixd answers to info with its default limits. */
static void info_of(const struct ex *e, struct kix_msg_info *m, bool mirror)
{
    kix_msg_info_init(m);
    m->origin = T(ORIGIN);
    m->log_key = T(e->vkey);
    m->size = 2;
    m->version = T("kixd 0.1.0");
    m->mirror = mirror;
    m->has_limits = true;
    m->limits.max_message = 16777216;
    m->limits.max_in_flight = 256;
    m->limits.max_batch = 1024;
    m->limits.max_entries = 1000;
    m->limits.max_objects = 1024;
    m->limits.max_checkpoints = 1000;
    m->limits.max_runs = 1000;
}

/* The resolution of run-1 (ranked: with its comparison group). */
static void resolution_of(const struct ex *e, struct kix_msg_resolve_result *m,
                          struct kix_msg_resolve_entry *entry, bool ranked)
{
    struct kix_digest id;
    char group[KIX_DIGEST_TEXT_LEN + 1];

    memset(m, 0, sizeof(*m));
    memset(entry, 0, sizeof(*entry));
    kix_digest_of(kix_signer_public_key(e->key), 32, &id);
    m->run_id = T("run-1");
    digest_bytes(e->empty_digest, m->digest);
    m->permalink = T("https://" ORIGIN "/runs/run-1");
    m->evidence = T("reported");
    m->evidence_index = m->superseded_by_index = m->supersedes_index = KIX_MSG_ABSENT;
    if (ranked) {
        text_digest("group", group);
        m->ranked = true;
        digest_bytes(group, m->comparison_key);
        m->rank = 1;
        m->group_size = 2;
        m->best = T("run-1");
    }
    memcpy(m->publisher, id.b, 32);
    m->publication_index = 1;
    m->manifest = T("{}");
    entry->index = 1;
    entry->type = T("publication");
    entry->leaf = T("e1");
    entry->nproof = 1;
    memcpy(entry->proof[0], e->h0.b, 32);
    m->nentries = 1;
    m->entries = entry;
    m->checkpoint = T(e->note2);
    m->size = 2;
}

/* Builds example `name` into out with the codec kixd and the client use;
 * 0 when the name is unknown. */
static int build(const struct ex *e, const char *name, struct kix_buf *out)
{
    struct kix_proto_writer w;
    struct kix_err err;
    struct kix_msg_info info;
    struct kix_msg_resolve_result res;
    struct kix_msg_resolve_entry entry;

    kix_proto_writer_init(&w, out);
    if (strcmp(name, "info.request") == 0) {
        kix_proto_begin_request(&w, 1, "info");
        kix_proto_put_map(&w, 0); /* no params */
    } else if (strcmp(name, "info.response") == 0) {
        info_of(e, &info, false);
        kix_proto_begin_response(&w, 1);
        kix_msg_put_info_result(&w, &info);
    } else if (strcmp(name, "info.mirror_response") == 0) {
        info_of(e, &info, true);
        info.upstream = T("tcp://log.example:7420");
        info.upstream_size = 3;
        info.lag_entries = 1;
        info.lag_seconds = 2;
        kix_proto_begin_response(&w, 1);
        kix_msg_put_info_result(&w, &info);
    } else if (strcmp(name, "submit.request") == 0) {
        struct kix_bytes obj = T("{}");
        struct kix_msg_bundle b[2] = {{T("e1"), 1, &obj}, {T("e2"), 0, NULL}};
        struct kix_msg_submit_params p = {2, b, NULL};
        kix_proto_begin_request(&w, 2, "submit");
        kix_msg_put_submit_params(&w, &p);
    } else if (strcmp(name, "submit.response") == 0) {
        struct kix_msg_submit_item it[2];
        struct kix_msg_submit_result r = {2, it, 2, NULL};
        memset(it, 0, sizeof(it));
        it[0].index = 1;
        memcpy(it[0].leaf_hash, e->h1.b, 32);
        it[0].receipt = T(e->receipt);
        it[1].code = KIX_EINVAL;
        it[1].message = T("malformed DSSE envelope");
        kix_proto_begin_response(&w, 2);
        kix_msg_put_submit_result(&w, &r);
    } else if (strcmp(name, "get_object.request") == 0) {
        struct kix_msg_get_object_params p;
        digest_bytes(e->empty_digest, p.digest);
        kix_proto_begin_request(&w, 3, "get_object");
        kix_msg_put_get_object_params(&w, &p);
    } else if (strcmp(name, "get_object.response") == 0) {
        struct kix_msg_get_object_result r = {T("{}")};
        kix_proto_begin_response(&w, 3);
        kix_msg_put_get_object_result(&w, &r);
    } else if (strcmp(name, "get_object.error") == 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "object %s is not in this log", zero_digest);
        return kix_proto_write_error(&w, 3, KIX_ENOTFOUND, msg, &err) == KIX_OK;
    } else if (strcmp(name, "get_objects.request") == 0) {
        uint8_t d[2][32];
        struct kix_msg_get_objects_params p = {2, (const uint8_t(*)[32])d, NULL};
        digest_bytes(e->empty_digest, d[0]);
        digest_bytes(zero_digest, d[1]);
        kix_proto_begin_request(&w, 4, "get_objects");
        kix_msg_put_get_objects_params(&w, &p);
    } else if (strcmp(name, "get_objects.response") == 0) {
        struct kix_bytes objs[2] = {T("{}"), {NULL, 0}};
        struct kix_msg_get_objects_result r = {2, objs, NULL};
        kix_proto_begin_response(&w, 4);
        kix_msg_put_get_objects_result(&w, &r);
    } else if (strcmp(name, "get_entries.request") == 0) {
        struct kix_msg_get_entries_params p = {0, 1000};
        kix_proto_begin_request(&w, 5, "get_entries");
        kix_msg_put_get_entries_params(&w, &p);
    } else if (strcmp(name, "get_entries.response") == 0) {
        struct kix_bytes leaves[2] = {T("e0"), T("e1")};
        struct kix_msg_entries r = {0, 2, leaves, {NULL, 0}, NULL};
        kix_proto_begin_response(&w, 5);
        kix_msg_put_get_entries_result(&w, &r);
    } else if (strcmp(name, "checkpoint.request") == 0) {
        struct kix_msg_checkpoint_params p = {2};
        kix_proto_begin_request(&w, 6, "checkpoint");
        kix_msg_put_checkpoint_params(&w, &p);
    } else if (strcmp(name, "checkpoint.response") == 0 ||
               strcmp(name, "checkpoint.cosigned_response") == 0) {
        struct kix_msg_checkpoint_result r = {
            T(strchr(name, '.')[1] == 'c' ? e->note2_cosigned : e->note2), 2};
        kix_proto_begin_response(&w, 6);
        kix_msg_put_checkpoint_result(&w, &r);
    } else if (strcmp(name, "inclusion_proof.request") == 0) {
        struct kix_msg_index_params p = {1, 2};
        kix_proto_begin_request(&w, 7, "inclusion_proof");
        kix_msg_put_index_params(&w, &p);
    } else if (strcmp(name, "inclusion_proof.response") == 0) {
        struct kix_msg_inclusion_result r;
        r.index = 1;
        r.size = 2;
        memcpy(r.leaf_hash, e->h1.b, 32);
        r.nproof = 1;
        memcpy(r.proof[0], e->h0.b, 32);
        kix_proto_begin_response(&w, 7);
        kix_msg_put_inclusion_result(&w, &r);
    } else if (strcmp(name, "consistency_proof.request") == 0) {
        struct kix_msg_consistency_params p = {1, 2};
        kix_proto_begin_request(&w, 8, "consistency_proof");
        kix_msg_put_consistency_params(&w, &p);
    } else if (strcmp(name, "consistency_proof.response") == 0) {
        struct kix_msg_consistency_result r;
        r.size1 = 1;
        r.size2 = 2;
        r.nproof = 1;
        memcpy(r.proof[0], e->h1.b, 32);
        kix_proto_begin_response(&w, 8);
        kix_msg_put_consistency_result(&w, &r);
    } else if (strcmp(name, "receipt.request") == 0) {
        struct kix_msg_index_params p = {1, KIX_MSG_ABSENT};
        kix_proto_begin_request(&w, 9, "receipt");
        kix_msg_put_index_params(&w, &p);
    } else if (strcmp(name, "receipt.response") == 0) {
        struct kix_msg_receipt_result r = {T(e->receipt)};
        kix_proto_begin_response(&w, 9);
        kix_msg_put_receipt_result(&w, &r);
    } else if (strcmp(name, "resolve.request") == 0) {
        struct kix_msg_resolve_params p = {T("https://" ORIGIN "/runs/run-1"), 0};
        kix_proto_begin_request(&w, 10, "resolve");
        kix_msg_put_resolve_params(&w, &p);
    } else if (strcmp(name, "resolve.response") == 0 ||
               strcmp(name, "resolve.ranked_response") == 0) {
        resolution_of(e, &res, &entry, strcmp(name, "resolve.ranked_response") == 0);
        kix_proto_begin_response(&w, 10);
        kix_msg_put_resolve_result(&w, &res);
    } else if (strcmp(name, "checkpoints.request") == 0) {
        struct kix_msg_checkpoints_params p = {0, KIX_MSG_ABSENT};
        kix_proto_begin_request(&w, 12, "checkpoints");
        kix_msg_put_checkpoints_params(&w, &p);
    } else if (strcmp(name, "checkpoints.response") == 0) {
        struct kix_msg_checkpoint_item items[2] = {{1, T(e->note1), {NULL, 0}},
                                                   {2, T(e->note2), {NULL, 0}}};
        struct kix_msg_checkpoints_result r = {2, items, NULL};
        kix_proto_begin_response(&w, 12);
        kix_msg_put_checkpoints_result(&w, &r);
    } else if (strcmp(name, "query.request") == 0) {
        struct kix_msg_query_params p;
        kix_msg_query_params_init(&p);
        p.kernel = T("rope");
        p.gpu = T("a100");
        p.limit = 10;
        kix_proto_begin_request(&w, 13, "query");
        kix_msg_put_query_params(&w, &p);
    } else if (strcmp(name, "query.response") == 0) {
        char group[KIX_DIGEST_TEXT_LEN + 1];
        struct kix_msg_query_run run;
        struct kix_msg_query_result r = {1, 1, &run, NULL};
        text_digest("group", group);
        memset(&run, 0, sizeof(run));
        run.run_id = T("run-1");
        digest_bytes(e->empty_digest, run.digest);
        digest_bytes(group, run.group);
        run.rank = 1;
        run.group_size = 1;
        run.value = 11360;
        run.evidence = T("reported");
        run.kernel = T("rope");
        run.gpu = T("NVIDIA A100");
        run.provider = T("liger");
        run.mode = T("forward");
        run.metric = T("latency");
        kix_proto_begin_response(&w, 13);
        kix_msg_put_query_result(&w, &r);
    } else if (strcmp(name, "add_cosignature.request") == 0) {
        struct kix_msg_add_cosignature_params p = {T(e->note2), T(e->cosig)};
        kix_proto_begin_request(&w, 14, "add_cosignature");
        kix_msg_put_add_cosignature_params(&w, &p);
    } else if (strcmp(name, "add_cosignature.response") == 0) {
        struct kix_msg_add_cosignature_result r = {2, true};
        kix_proto_begin_response(&w, 14);
        kix_msg_put_add_cosignature_result(&w, &r);
    } else if (strcmp(name, "add_cosignature.error") == 0) {
        return kix_proto_write_error(&w, 14, KIX_EVERIFY,
                                     "cosignature of the checkpoint at size 2: the cosignature of "
                                     "witness.example is not by a witness this log accepts (1 "
                                     "witness keys configured)",
                                     &err) == KIX_OK;
    } else if (strcmp(name, "unknown_method.error") == 0) {
        return kix_proto_write_error(&w, 15, KIX_EINVAL,
                                     "unknown method \"object.get\" (proto/PROTOCOL.md lists the "
                                     "methods)",
                                     &err) == KIX_OK;
    } else if (strcmp(name, "follow.request") == 0) {
        struct kix_msg_follow_params p = {1, false};
        kix_proto_begin_request(&w, 11, "follow");
        kix_msg_put_follow_params(&w, &p);
    } else if (strcmp(name, "follow.response") == 0) {
        struct kix_msg_size_result r = {1};
        kix_proto_begin_response(&w, 11);
        kix_msg_put_follow_result(&w, &r);
    } else if (strcmp(name, "follow.notification") == 0) {
        struct kix_bytes leaf = T("e1");
        struct kix_msg_entries n = {1, 1, &leaf, T(e->note2), NULL};
        kix_proto_begin_notification(&w, "entries");
        kix_msg_put_entries_notification(&w, &n);
    } else if (strcmp(name, "replicated.request") == 0 ||
               strcmp(name, "replicated.held_request") == 0) {
        /* the held one carries witness.example's held statement of note2 */
        struct kix_msg_replicated_params p = {2, {0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};
        struct kix_hash root;
        kix_merkle_node_hash(&e->h0, &e->h1, &root);
        memcpy(p.root, root.b, 32);
        p.mirror = T("0123456789abcdef0123456789abcdef");
        if (strchr(name, '.')[1] == 'h')
            p.held = T(e->held);
        kix_proto_begin_request(&w, 15, "replicated");
        kix_msg_put_replicated_params(&w, &p);
    } else if (strcmp(name, "replicated.response") == 0) {
        struct kix_msg_size_result r = {2};
        kix_proto_begin_response(&w, 15);
        kix_msg_put_follow_result(&w, &r);
    } else {
        return 0;
    }
    return kix_proto_writer_end(&w, &err) == KIX_OK;
}

static const char *const names[] = {
    "info.request",
    "info.response",
    "submit.request",
    "submit.response",
    "get_object.request",
    "get_object.response",
    "get_object.error",
    "get_objects.request",
    "get_objects.response",
    "get_entries.request",
    "get_entries.response",
    "checkpoint.request",
    "checkpoint.response",
    "inclusion_proof.request",
    "inclusion_proof.response",
    "consistency_proof.request",
    "consistency_proof.response",
    "receipt.request",
    "receipt.response",
    "resolve.request",
    "resolve.response",
    "follow.request",
    "follow.response",
    "follow.notification",
    "resolve.ranked_response",
    "info.mirror_response",
    "checkpoint.cosigned_response",
    "checkpoints.request",
    "checkpoints.response",
    "query.request",
    "query.response",
    "add_cosignature.request",
    "add_cosignature.response",
    "add_cosignature.error",
    "replicated.request",
    "replicated.held_request",
    "replicated.response",
    "unknown_method.error",
};

/* ---- the document ---------------------------------------------------------- */

/* The hex of example `name` in PROTOCOL.md: the indented lines after its
 * marker, up to the first line that is not indented hex. */
static size_t doc_bytes(const char *doc, const char *name, uint8_t *out, size_t cap)
{
    char marker[128];
    const char *p;
    size_t n = 0;

    snprintf(marker, sizeof(marker), "<!-- example %s -->", name);
    p = strstr(doc, marker);
    if (!p)
        return 0;
    p = strchr(p, '\n');
    while (p && p[1] == '\n')
        p++;
    while (p && strncmp(p, "\n    ", 5) == 0) {
        p += 5;
        while (*p && *p != '\n') {
            unsigned v;
            if (*p == ' ') {
                p++;
                continue;
            }
            if (sscanf(p, "%2x", &v) != 1 || n >= cap)
                return 0;
            out[n++] = (uint8_t)v;
            p += 2;
        }
    }
    return n;
}

static char *read_doc(void)
{
    return kix_test_read_file("../proto/PROTOCOL.md", NULL);
}

/* ---- printing (for writing the document) ------------------------------------- */

static void print_value(const struct kix_proto_value *v, int indent);
static void print_map(const struct kix_proto_map *m, int indent);

static void print_bytes(const struct kix_bytes *b, int is_bin)
{
    int printable = 1;
    for (size_t i = 0; i < b->len; i++)
        if (b->ptr[i] < 0x20 || b->ptr[i] > 0x7e)
            printable = b->ptr[i] == '\n' && !is_bin ? printable : 0;
    if (is_bin && !printable) {
        printf("bin(");
        for (size_t i = 0; i < b->len; i++)
            printf("%02x", b->ptr[i]);
        printf(")");
        return;
    }
    printf("%s\"", is_bin ? "b" : "");
    for (size_t i = 0; i < b->len; i++) {
        if (b->ptr[i] == '\n')
            printf("\\n");
        else if (b->ptr[i] == '"')
            printf("\\\"");
        else if (b->ptr[i] < 0x80)
            putchar(b->ptr[i]);
        else
            putchar(b->ptr[i]);
    }
    printf("\"");
}

static void print_map(const struct kix_proto_map *m, int indent)
{
    size_t n = kix_proto_map_count(m);
    printf("{");
    for (size_t k = 0; k < n; k++) {
        const struct kix_proto_value *key, *val;
        kix_proto_map_at(m, k, &key, &val);
        printf("%s\n%*s", k ? "," : "", indent + 2, "");
        print_value(key, indent + 2);
        printf(": ");
        print_value(val, indent + 2);
    }
    if (n)
        printf("\n%*s", indent, "");
    printf("}");
}

static void print_value(const struct kix_proto_value *v, int indent)
{
    struct kix_bytes b;
    const struct kix_proto_array *a;
    const struct kix_proto_map *m;
    uint64_t u;
    int64_t i;
    bool t;
    size_t n;

    switch (kix_proto_kind(v)) {
    case KIX_PROTO_NIL:
        printf("nil");
        break;
    case KIX_PROTO_BOOL:
        (void)kix_proto_value_bool(v, &t, NULL);
        printf("%s", t ? "true" : "false");
        break;
    case KIX_PROTO_INT:
        if (kix_proto_value_u64(v, &u, NULL) == KIX_OK)
            printf("%llu", (unsigned long long)u);
        else if (kix_proto_value_i64(v, &i, NULL) == KIX_OK)
            printf("%lld", (long long)i);
        break;
    case KIX_PROTO_STR:
        (void)kix_proto_value_str(v, &b, NULL);
        print_bytes(&b, 0);
        break;
    case KIX_PROTO_BIN:
        (void)kix_proto_value_bin(v, &b, NULL);
        print_bytes(&b, 1);
        break;
    case KIX_PROTO_ARRAY:
        (void)kix_proto_value_array(v, &a, &n, NULL);
        printf("[");
        for (size_t k = 0; k < n; k++) {
            printf("%s", k ? ", " : "");
            print_value(kix_proto_array_at(a, k), indent);
        }
        printf("]");
        break;
    case KIX_PROTO_MAP:
        (void)kix_proto_value_map(v, &m, NULL);
        print_map(m, indent);
        break;
    default:
        printf("?");
    }
}

KIX_TEST(examples_match_the_document)
{
    struct ex e;
    char *doc = read_doc();
    static uint8_t want[8192];

    ASSERT_TRUE(doc != NULL);
    ex_init(&e);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct kix_buf b = KIX_BUF_INIT;
        struct kix_proto_msg msg;
        size_t n;
        ASSERT_TRUE(build(&e, names[i], &b));
        n = doc_bytes(doc, names[i], want, sizeof(want));
        if (n != b.len || memcmp(want, b.ptr, n) != 0)
            KIX_FAIL_AT("example %s: PROTOCOL.md has %zu bytes that differ from the %zu built "
                        "here (KIX_PRINT_EXAMPLES=1 test_protocol_examples print)",
                        names[i], n, b.len);
        /* and it is one well-formed message */
        ASSERT_EQ_INT(KIX_OK, kix_proto_decode(b.ptr, b.len, NULL, &msg, NULL));
        kix_proto_msg_release(&msg);
        kix_buf_release(&b);
    }
    ex_release(&e);
    free(doc);
}

KIX_TEST(example_receipt_and_checkpoints_verify)
{
    struct ex e;
    struct kix_verifier v;
    struct kix_receipt r;
    struct kix_note note;
    struct kix_checkpoint cp;
    struct kix_hash root;
    struct kix_err err;

    ex_init(&e);
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(e.vkey, strlen(e.vkey), &v, &err));
    kix_receipt_init(&r);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify(e.receipt, strlen(e.receipt), &v,
                                             (const uint8_t *)"e1", 2, &r, &cp, &err));
    ASSERT_EQ_U64(1, r.index);
    ASSERT_EQ_U64(2, cp.size);
    kix_receipt_release(&r);
    ASSERT_EQ_INT(KIX_OK,
                  kix_checkpoint_open(e.note1, strlen(e.note1), &v, 1, ORIGIN, &note, &cp, &err));
    memcpy(root.b, cp.root, 32);
    /* the consistency example: [h1] proves size 1 → 2 */
    {
        struct kix_hash r2;
        kix_merkle_node_hash(&e.h0, &e.h1, &r2);
        ASSERT_EQ_INT(KIX_OK, kix_merkle_verify_consistency(1, 2, &root, &r2, &e.h1, 1, &err));
        ASSERT_EQ_INT(KIX_OK, kix_merkle_verify_inclusion(1, 2, &e.h1, &e.h0, 1, &r2, &err));
    }
    ex_release(&e);
}

KIX_TEST(example_cosignature_verifies)
{
    struct ex e;
    struct kix_verifier known[2];
    struct kix_note note;
    struct kix_err err;

    ex_init(&e);
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(e.vkey, strlen(e.vkey), &known[0], &err));
    kix_verifier_from_signer(e.witness, &known[1]);
    ASSERT_EQ_INT(KIX_OK,
                  kix_note_open(e.note2_cosigned, strlen(e.note2_cosigned), known, 2, &note, &err));
    ASSERT_TRUE(kix_note_verified_by(&note, 0));
    ASSERT_TRUE(kix_note_verified_by(&note, 1));
    ASSERT_EQ_U64(1700000000, note.sigs[1].timestamp);
    ex_release(&e);
}

KIX_TEST(print)
{
    struct ex e;

    if (!getenv("KIX_PRINT_EXAMPLES"))
        return;
    ex_init(&e);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct kix_buf b = KIX_BUF_INIT;
        struct kix_proto_msg msg;
        ASSERT_TRUE(build(&e, names[i], &b));
        printf("==== %s\n", names[i]);
        ASSERT_EQ_INT(KIX_OK, kix_proto_decode(b.ptr, b.len, NULL, &msg, NULL));
        printf("    ");
        if (msg.type == KIX_PROTO_REQUEST) {
            printf("[0, %u, \"%.*s\", [", msg.msgid, (int)msg.method.len,
                   (const char *)msg.method.ptr);
            print_map(msg.params, 4);
            printf("]]");
        } else if (msg.type == KIX_PROTO_NOTIFICATION) {
            printf("[2, \"%.*s\", [", (int)msg.method.len, (const char *)msg.method.ptr);
            print_map(msg.params, 4);
            printf("]]");
        } else if (msg.error_code) {
            printf("[1, %u, {\"code\": %d, \"message\": \"%.*s\"}, nil]", msg.msgid, msg.error_code,
                   (int)msg.error_message.len, (const char *)msg.error_message.ptr);
        } else {
            printf("[1, %u, nil, ", msg.msgid);
            print_value(msg.result, 4);
            printf("]");
        }
        printf("\n\n<!-- example %s -->\n\n", names[i]);
        for (size_t k = 0; k < b.len; k++)
            printf("%s%02x%s", k % 16 == 0 ? "    " : "", b.ptr[k],
                   k % 16 == 15 || k + 1 == b.len ? "\n" : " ");
        printf("\n");
        kix_proto_msg_release(&msg);
        kix_buf_release(&b);
    }
    ex_release(&e);
}

KIX_TEST_MAIN()
