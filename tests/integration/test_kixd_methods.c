/* Every kixd method against a real kixd: the happy path, checked against
 * the log key, and each error with its code and message. */
#include "kixd_calls.h"

#include "kix/resolve.h"
#include "kix/version.h"

static void expect_error(int rc, const struct kix_err *err, int code, const char *needle,
                         int *failed, int line)
{
    if (rc != code || !strstr(err->msg, needle)) {
        fprintf(stderr, "line %d: want %s containing \"%s\", got %s \"%s\"\n", line,
                kix_err_name(code), needle, kix_err_name(rc), err->msg);
        *failed = 1;
    }
}

#define EXPECT_ERROR(rc, code, needle)                                                             \
    do {                                                                                           \
        int failed_ = 0;                                                                           \
        expect_error((rc), &err, (code), (needle), &failed_, __LINE__);                            \
        if (failed_)                                                                               \
            KIX_FAIL_AT("error case failed");                                                      \
    } while (0)

KIX_TEST(info_fields)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    const struct kix_proto_map *r, *lim;
    struct kix_verifier v;
    char text[1024];
    bool mirror = true;

    ASSERT_EQ_INT(0, fx_start(&f));
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, ""));
    r = result_map(&m);
    ASSERT_EQ_STR(FX_ORIGIN, field_text(r, "origin", text, sizeof(text)));
    ASSERT_EQ_STR("kixd " KIX_VERSION_STRING, field_text(r, "version", text, sizeof(text)));
    ASSERT_EQ_U64(2, field_u64(r, "size")); /* entry 0 and the publisher's key */
    ASSERT_TRUE(field_text(r, "logKey", text, sizeof(text)) != NULL);
    ASSERT_EQ_INT(KIX_OK, kix_verifier_parse(text, strlen(text), &v, NULL));
    ASSERT_EQ_STR(FX_ORIGIN, v.name);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bool(r, "mirror", &mirror, NULL));
    ASSERT_TRUE(!mirror);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_map(r, "limits", &lim, NULL));
    ASSERT_EQ_U64(16777216, field_u64(lim, "maxMessage"));
    ASSERT_EQ_U64(256, field_u64(lim, "maxInFlight"));
    ASSERT_EQ_U64(1024, field_u64(lim, "maxBatch"));
    ASSERT_EQ_U64(1000, field_u64(lim, "maxEntries"));
    ASSERT_EQ_U64(1024, field_u64(lim, "maxObjects"));
    kix_proto_msg_release(&m);
    /* params other than a map are a shape error, answered EPROTO */
    ASSERT_EQ_INT(KIX_OK, kix_rpc_send_params(c, "info", "\x90", 1, NULL, &err));
    ASSERT_EQ_INT(KIX_OK, kix_rpc_recv(c, &m, &err));
    ASSERT_EQ_INT(KIX_EPROTO, m.error_code);
    kix_proto_msg_release(&m);
    /* unknown fields are ignored */
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, "u", "future", (uint64_t)1));
    kix_proto_msg_release(&m);
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(unknown_method)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;

    ASSERT_EQ_INT(0, fx_start(&f));
    c = fx_rpc(&f);
    EXPECT_ERROR(callv(c, "no_such_method", &m, &err, ""), KIX_EINVAL,
                 "unknown method \"no_such_method\"");
    /* the connection goes on */
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &m, &err, ""));
    kix_proto_msg_release(&m);
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* A raw submit of (envelope, objects) bundles. */
struct raw_bundle {
    const void *env;
    size_t env_len;
    const char *const *objs;
    size_t nobjs;
    int env_as_str; /* send the envelope as str (wrong type) */
};

struct raw_submit {
    const struct raw_bundle *b;
    size_t n;
};

static int put_raw_submit(void *ctx, struct kix_proto_writer *w)
{
    const struct raw_submit *s = ctx;
    kix_proto_put_map(w, 1);
    kix_proto_put_key(w, "bundles");
    kix_proto_put_array(w, s->n);
    for (size_t i = 0; i < s->n; i++) {
        const struct raw_bundle *b = &s->b[i];
        kix_proto_put_map(w, 2);
        kix_proto_put_key(w, "envelope");
        if (b->env_as_str)
            kix_proto_put_str(w, b->env, b->env_len);
        else
            kix_proto_put_bin(w, b->env, b->env_len);
        kix_proto_put_key(w, "objects");
        kix_proto_put_array(w, b->nobjs);
        for (size_t k = 0; k < b->nobjs; k++)
            kix_proto_put_bin(w, b->objs[k], strlen(b->objs[k]));
    }
    return KIX_OK;
}

static const struct kix_proto_map *result_at(const struct kix_proto_map *r, size_t i)
{
    const struct kix_proto_array *a;
    const struct kix_proto_map *m = NULL;
    size_t n;
    if (kix_proto_map_get_array(r, "results", &a, &n, NULL) != KIX_OK || i >= n ||
        kix_proto_value_map(kix_proto_array_at(a, i), &m, NULL) != KIX_OK)
        return NULL;
    return m;
}

KIX_TEST(submit_results_receipts_duplicates_refusals)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;
    struct kix_buf e1 = KIX_BUF_INIT, e2 = KIX_BUF_INIT, e3 = KIX_BUF_INIT;
    struct kix_signer *stranger = NULL;
    struct kix_digest d;
    struct kix_receipt rec;
    char m1[512], m2[512], m3[512];
    const char *o1[] = {m1, fx_workload}, *o2[] = {m2, fx_workload}, *o3[] = {m3, fx_workload};
    const struct kix_proto_map *r, *item, *e;
    struct kix_bytes receipt, leaf_hash;
    bool dup = true;
    int64_t code = 0;

    ASSERT_EQ_INT(0, fx_start(&f));
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, fx_publication(&f, "run-a", 1, &e1, m1));
    ASSERT_EQ_INT(KIX_OK, fx_publication(&f, "run-b", 2, &e2, m2));
    /* a key the log does not know */
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("stranger", KIX_NOTE_ALG_ED25519, &stranger, NULL));
    fx_manifest(m3, sizeof(m3), 3);
    fx_digest_of_json(m3, &d);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_publication(stranger, "run-c", &d, NULL, "t", "MIT", &e3, NULL));
    {
        struct raw_bundle b[4] = {{e1.ptr, e1.len, o1, 2, 0},
                                  {e3.ptr, e3.len, o3, 2, 0},
                                  {"{not json", 9, NULL, 0, 0},
                                  {e2.ptr, e2.len, o2, 2, 0}};
        struct raw_submit s = {b, 4};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_call(c, "submit", put_raw_submit, &s, &m, &err));
    }
    r = result_map(&m);
    ASSERT_EQ_U64(4, field_u64(r, "size"));
    /* 0: accepted at index 2 with a receipt that verifies */
    item = result_at(r, 0);
    ASSERT_EQ_U64(2, field_u64(item, "index"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bool(item, "duplicate", &dup, NULL));
    ASSERT_TRUE(!dup);
    leaf_hash = field_bytes(item, "leafHash");
    ASSERT_EQ_INT(32, leaf_hash.len);
    receipt = field_bytes(item, "receipt");
    kix_receipt_init(&rec);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)receipt.ptr, receipt.len, &f.log_key,
                                             e1.ptr, e1.len, &rec, NULL, &err));
    ASSERT_EQ_U64(2, rec.index);
    kix_receipt_release(&rec);
    /* 1: refused by policy (unknown key) */
    item = result_at(r, 1);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_map(item, "error", &e, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_i64(e, "code", &code, NULL));
    ASSERT_TRUE(code == KIX_EPOLICY || code == KIX_EVERIFY);
    /* 2: not JSON */
    item = result_at(r, 2);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_map(item, "error", &e, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_i64(e, "code", &code, NULL));
    ASSERT_EQ_INT(KIX_EINVAL, code);
    /* 3: accepted after the refusals */
    ASSERT_EQ_U64(3, field_u64(result_at(r, 3), "index"));
    kix_proto_msg_release(&m);

    /* the same envelope again: the original index, duplicate */
    {
        struct raw_bundle b[1] = {{e1.ptr, e1.len, o1, 2, 0}};
        struct raw_submit s = {b, 1};
        ASSERT_EQ_INT(KIX_OK, kix_rpc_call(c, "submit", put_raw_submit, &s, &m, &err));
    }
    item = result_at(result_map(&m), 0);
    ASSERT_EQ_U64(2, field_u64(item, "index"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bool(item, "duplicate", &dup, NULL));
    ASSERT_TRUE(dup);
    ASSERT_EQ_U64(4, field_u64(result_map(&m), "size"));
    kix_proto_msg_release(&m);

    /* request-level errors */
    EXPECT_ERROR(callv(c, "submit", &m, &err, ""), KIX_EINVAL, "missing field \"bundles\"");
    EXPECT_ERROR(callv(c, "submit", &m, &err, "s", "bundles", "x"), KIX_EINVAL,
                 "field \"bundles\": expected array, got str");
    {
        struct raw_submit s = {NULL, 0};
        EXPECT_ERROR(kix_rpc_call(c, "submit", put_raw_submit, &s, &m, &err), KIX_EINVAL, "empty");
    }
    {
        struct raw_bundle b[1] = {{e1.ptr, e1.len, o1, 2, 1}};
        struct raw_submit s = {b, 1};
        EXPECT_ERROR(kix_rpc_call(c, "submit", put_raw_submit, &s, &m, &err), KIX_EINVAL,
                     "bundles[0]: field \"envelope\": expected bin, got str");
    }
    {
        struct raw_bundle *b = calloc(1025, sizeof(*b));
        struct raw_submit s = {b, 1025};
        for (int i = 0; i < 1025; i++) {
            b[i].env = "{}";
            b[i].env_len = 2;
        }
        EXPECT_ERROR(kix_rpc_call(c, "submit", put_raw_submit, &s, &m, &err), KIX_ELIMIT,
                     "1025 bundles");
        free(b);
    }
    kix_rpc_close(c);
    kix_signer_free(stranger);
    kix_buf_release(&e1);
    kix_buf_release(&e2);
    kix_buf_release(&e3);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(get_object_and_objects)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_client *cl;
    struct kix_proto_msg m;
    struct kix_err err;
    struct kix_digest d, w;
    struct kix_buf got = KIX_BUF_INIT;
    char manifest[512], dtext[KIX_DIGEST_TEXT_LEN + 1], wtext[KIX_DIGEST_TEXT_LEN + 1];
    const char *unknown = "sha256:00000000000000000000000000000000000000000000000000000000000000"
                          "00";
    struct kix_bytes obj;
    const struct kix_proto_array *a;
    size_t n;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-o", 7, NULL));
    fx_manifest(manifest, sizeof(manifest), 7);
    fx_digest_of_json(manifest, &d);
    fx_digest_of_json(fx_workload, &w);
    kix_digest_format(&d, dtext);
    kix_digest_format(&w, wtext);
    /* through kix_client, which checks the digest */
    cl = fx_client(&f);
    ASSERT_EQ_INT(KIX_OK, kix_client_get_object(cl, &d, &got, &err));
    ASSERT_EQ_MEM(manifest, strlen(manifest), got.ptr, got.len);
    kix_client_close(cl);
    kix_buf_release(&got);

    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, callv(c, "get_object", &m, &err, "s", "digest", wtext));
    obj = field_bytes(result_map(&m), "object");
    ASSERT_EQ_MEM(fx_workload, strlen(fx_workload), obj.ptr, obj.len);
    kix_proto_msg_release(&m);
    EXPECT_ERROR(callv(c, "get_object", &m, &err, "s", "digest", unknown), KIX_ENOTFOUND,
                 "is not in this log");
    EXPECT_ERROR(callv(c, "get_object", &m, &err, "s", "digest", "sha256:abc"), KIX_EINVAL,
                 "field \"digest\"");
    EXPECT_ERROR(callv(c, "get_object", &m, &err, ""), KIX_EINVAL, "missing field \"digest\"");
    EXPECT_ERROR(callv(c, "get_object", &m, &err, "u", "digest", (uint64_t)5), KIX_EINVAL,
                 "field \"digest\": expected str, got int");

    {
        const char *list[] = {dtext, unknown, wtext};
        ASSERT_EQ_INT(KIX_OK, callv(c, "get_objects", &m, &err, "a", "digests", list, (size_t)3));
    }
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(result_map(&m), "objects", &a, &n, NULL));
    ASSERT_EQ_INT(3, n);
    ASSERT_EQ_INT(KIX_OK, kix_proto_value_bin(kix_proto_array_at(a, 0), &obj, NULL));
    ASSERT_EQ_MEM(manifest, strlen(manifest), obj.ptr, obj.len);
    ASSERT_TRUE(kix_proto_value_is_nil(kix_proto_array_at(a, 1)));
    ASSERT_EQ_INT(KIX_OK, kix_proto_value_bin(kix_proto_array_at(a, 2), &obj, NULL));
    ASSERT_EQ_MEM(fx_workload, strlen(fx_workload), obj.ptr, obj.len);
    kix_proto_msg_release(&m);
    {
        const char *list[] = {dtext, "nope"};
        EXPECT_ERROR(callv(c, "get_objects", &m, &err, "a", "digests", list, (size_t)2), KIX_EINVAL,
                     "digests[1]");
    }
    {
        const char **list = calloc(1025, sizeof(*list));
        for (int i = 0; i < 1025; i++)
            list[i] = unknown;
        EXPECT_ERROR(callv(c, "get_objects", &m, &err, "a", "digests", list, (size_t)1025),
                     KIX_ELIMIT, "1025 digests");
        free(list);
    }
    EXPECT_ERROR(callv(c, "get_objects", &m, &err, ""), KIX_EINVAL, "missing field \"digests\"");
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

static int collect(void *ctx, uint64_t index, const uint8_t *leaf, size_t len)
{
    uint64_t *sum = ctx;
    (void)leaf;
    *sum += index * 1000003u + len;
    return 0;
}

KIX_TEST(get_entries)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_client *cl;
    struct kix_proto_msg m;
    struct kix_err err;
    const struct kix_proto_array *a;
    struct kix_bytes leaf;
    struct kix_hash h, root;
    size_t n;
    uint64_t got = 0, sum = 0, want = 0;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-e", 1, NULL));
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, callv(c, "get_entries", &m, &err, "uu", "start", (uint64_t)0, "count",
                                (uint64_t)10));
    ASSERT_EQ_U64(0, field_u64(result_map(&m), "start"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(result_map(&m), "entries", &a, &n, NULL));
    ASSERT_EQ_INT(3, n);
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_proto_value_bin(kix_proto_array_at(a, i), &leaf, NULL));
        want += i * 1000003u + leaf.len;
    }
    /* entry 2's leaf hash matches the inclusion proof's */
    kix_merkle_leaf_hash(leaf.ptr, leaf.len, &h);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, callv(c, "inclusion_proof", &m, &err, "u", "index", (uint64_t)2));
    ASSERT_EQ_MEM(h.b, 32, field_bytes(result_map(&m), "leafHash").ptr, 32);
    kix_proto_msg_release(&m);
    (void)root;
    /* past the end: empty */
    ASSERT_EQ_INT(KIX_OK, callv(c, "get_entries", &m, &err, "uu", "start", (uint64_t)3, "count",
                                (uint64_t)5));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(result_map(&m), "entries", &a, &n, NULL));
    ASSERT_EQ_INT(0, n);
    kix_proto_msg_release(&m);
    EXPECT_ERROR(
        callv(c, "get_entries", &m, &err, "uu", "start", (uint64_t)0, "count", (uint64_t)0),
        KIX_EINVAL, "count must be at least 1");
    EXPECT_ERROR(
        callv(c, "get_entries", &m, &err, "uu", "start", (uint64_t)0, "count", (uint64_t)1001),
        KIX_ELIMIT, "count 1001");
    EXPECT_ERROR(callv(c, "get_entries", &m, &err, "u", "count", (uint64_t)1), KIX_EINVAL,
                 "missing field \"start\"");
    EXPECT_ERROR(
        callv(c, "get_entries", &m, &err, "iu", "start", (int64_t)-1, "count", (uint64_t)1),
        KIX_EINVAL, "start");
    kix_rpc_close(c);
    /* kix_client pages through the same */
    cl = fx_client(&f);
    ASSERT_EQ_INT(KIX_OK, kix_client_entries(cl, 0, 100, collect, &sum, &got, &err));
    ASSERT_EQ_U64(3, got);
    ASSERT_EQ_U64(want, sum);
    kix_client_close(cl);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(checkpoint_and_proofs)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_client *cl;
    struct kix_proto_msg m;
    struct kix_err err;
    struct kix_note note;
    struct kix_checkpoint cp3, cp4;
    struct kix_bytes text;
    struct kix_hash proof[KIX_MERKLE_MAX_PROOF], leaf, r3, r4;
    struct kix_buf cpbuf = KIX_BUF_INIT;
    const struct kix_proto_array *a;
    size_t n;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-p1", 1, NULL)); /* size 3 */
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-p2", 2, NULL)); /* size 4 */
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, callv(c, "checkpoint", &m, &err, ""));
    ASSERT_EQ_U64(4, field_u64(result_map(&m), "size"));
    text = field_bytes(result_map(&m), "checkpoint");
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)text.ptr, text.len, &f.log_key, 1,
                                              FX_ORIGIN, &note, &cp4, &err));
    ASSERT_EQ_U64(4, cp4.size);
    kix_proto_msg_release(&m);
    ASSERT_EQ_INT(KIX_OK, callv(c, "checkpoint", &m, &err, "u", "size", (uint64_t)3));
    text = field_bytes(result_map(&m), "checkpoint");
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)text.ptr, text.len, &f.log_key, 1,
                                              FX_ORIGIN, &note, &cp3, &err));
    ASSERT_EQ_U64(3, cp3.size);
    kix_proto_msg_release(&m);
    EXPECT_ERROR(callv(c, "checkpoint", &m, &err, "u", "size", (uint64_t)99), KIX_ENOTFOUND,
                 "no signed checkpoint at size 99");
    EXPECT_ERROR(callv(c, "checkpoint", &m, &err, "s", "size", "3"), KIX_EINVAL,
                 "field \"size\": expected int, got str");

    /* inclusion of entry 2 in the tree of size 3, checked against cp3 */
    ASSERT_EQ_INT(KIX_OK, callv(c, "inclusion_proof", &m, &err, "uu", "index", (uint64_t)2, "size",
                                (uint64_t)3));
    ASSERT_EQ_U64(2, field_u64(result_map(&m), "index"));
    ASSERT_EQ_U64(3, field_u64(result_map(&m), "size"));
    memcpy(leaf.b, field_bytes(result_map(&m), "leafHash").ptr, 32);
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(result_map(&m), "proof", &a, &n, NULL));
    for (size_t i = 0; i < n; i++) {
        struct kix_bytes b;
        ASSERT_EQ_INT(KIX_OK, kix_proto_value_bin(kix_proto_array_at(a, i), &b, NULL));
        memcpy(proof[i].b, b.ptr, 32);
    }
    memcpy(r3.b, cp3.root, 32);
    memcpy(r4.b, cp4.root, 32);
    ASSERT_EQ_INT(KIX_OK, kix_merkle_verify_inclusion(2, 3, &leaf, proof, n, &r3, &err));
    kix_proto_msg_release(&m);
    EXPECT_ERROR(
        callv(c, "inclusion_proof", &m, &err, "uu", "index", (uint64_t)3, "size", (uint64_t)3),
        KIX_EINVAL, "not in a tree of size 3");
    EXPECT_ERROR(
        callv(c, "inclusion_proof", &m, &err, "uu", "index", (uint64_t)0, "size", (uint64_t)50),
        KIX_ENOTFOUND, "50");
    EXPECT_ERROR(callv(c, "inclusion_proof", &m, &err, ""), KIX_EINVAL, "missing field \"index\"");

    /* consistency 3 → 4 (size2 defaults to the latest) */
    ASSERT_EQ_INT(KIX_OK, callv(c, "consistency_proof", &m, &err, "u", "size1", (uint64_t)3));
    ASSERT_EQ_U64(3, field_u64(result_map(&m), "size1"));
    ASSERT_EQ_U64(4, field_u64(result_map(&m), "size2"));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_array(result_map(&m), "proof", &a, &n, NULL));
    for (size_t i = 0; i < n; i++) {
        struct kix_bytes b;
        ASSERT_EQ_INT(KIX_OK, kix_proto_value_bin(kix_proto_array_at(a, i), &b, NULL));
        memcpy(proof[i].b, b.ptr, 32);
    }
    ASSERT_EQ_INT(KIX_OK, kix_merkle_verify_consistency(3, 4, &r3, &r4, proof, n, &err));
    kix_proto_msg_release(&m);
    EXPECT_ERROR(callv(c, "consistency_proof", &m, &err, "u", "size1", (uint64_t)0), KIX_EINVAL,
                 "0 < old size");
    EXPECT_ERROR(
        callv(c, "consistency_proof", &m, &err, "uu", "size1", (uint64_t)1, "size2", (uint64_t)9),
        KIX_ENOTFOUND, "9");
    EXPECT_ERROR(callv(c, "consistency_proof", &m, &err, ""), KIX_EINVAL,
                 "missing field \"size1\"");
    kix_rpc_close(c);

    /* the same through kix_client */
    cl = fx_client(&f);
    ASSERT_EQ_INT(KIX_OK, kix_client_checkpoint(cl, KIX_NO_INDEX, &cpbuf, &err));
    ASSERT_EQ_INT(KIX_OK, kix_checkpoint_open((const char *)cpbuf.ptr, cpbuf.len, &f.log_key, 1,
                                              FX_ORIGIN, &note, &cp4, &err));
    ASSERT_EQ_INT(KIX_OK, kix_client_consistency(cl, 2, KIX_NO_INDEX, proof, &n, &err));
    ASSERT_EQ_INT(KIX_OK, kix_client_inclusion(cl, 1, KIX_NO_INDEX, proof, &n, &err));
    kix_client_close(cl);
    kix_buf_release(&cpbuf);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(receipt)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_client *cl;
    struct kix_proto_msg m;
    struct kix_err err;
    struct kix_bytes text;
    struct kix_receipt rec;
    struct kix_checkpoint cp;
    struct kix_buf out = KIX_BUF_INIT;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-r", 1, NULL)); /* size 3 */
    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK,
                  callv(c, "receipt", &m, &err, "uu", "index", (uint64_t)1, "size", (uint64_t)2));
    text = field_bytes(result_map(&m), "receipt");
    kix_receipt_init(&rec);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)text.ptr, text.len, &f.log_key, NULL, 0,
                                             &rec, &cp, &err));
    ASSERT_EQ_U64(1, rec.index);
    ASSERT_EQ_U64(2, cp.size);
    kix_receipt_release(&rec);
    kix_proto_msg_release(&m);
    EXPECT_ERROR(callv(c, "receipt", &m, &err, "u", "index", (uint64_t)3), KIX_EINVAL, "3");
    EXPECT_ERROR(callv(c, "receipt", &m, &err, ""), KIX_EINVAL, "missing field \"index\"");
    kix_rpc_close(c);
    cl = fx_client(&f);
    ASSERT_EQ_INT(KIX_OK, kix_client_receipt(cl, 2, KIX_NO_INDEX, &out, &err));
    kix_receipt_init(&rec);
    ASSERT_EQ_INT(KIX_OK, kix_receipt_verify((const char *)out.ptr, out.len, &f.log_key, NULL, 0,
                                             &rec, &cp, &err));
    ASSERT_EQ_U64(2, rec.index);
    ASSERT_EQ_U64(3, cp.size);
    kix_receipt_release(&rec);
    kix_buf_release(&out);
    kix_client_close(cl);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(resolve)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_client *cl;
    struct kix_proto_msg m;
    struct kix_err err;
    struct kix_resolution res;
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_submit_result sr;
    struct kix_digest d, rd;
    char manifest[512], rerun[512], ref[300], dtext[KIX_DIGEST_TEXT_LEN + 1], text[300];
    const char *objs[] = {rerun};
    struct kix_signer *rerunner = NULL;
    uint64_t pub = 0;

    ASSERT_EQ_INT(0, fx_start(&f));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-x", 1, &pub));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-y", 2, NULL));
    fx_manifest(manifest, sizeof(manifest), 1);
    fx_digest_of_json(manifest, &d);
    kix_digest_format(&d, dtext);
    /* an attestation, a rerun and a supersession of run-x */
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_attestation(f.publisher, "run-x", &d, "seen it", NULL, 0, &env, NULL));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, NULL, 0, &sr));
    kix_submit_result_release(&sr);
    kix_buf_reset(&env);
    fx_manifest(rerun, sizeof(rerun), 50);
    fx_digest_of_json(rerun, &rd);
    /* by a key of its own: the publisher's own rerun is refused */
    ASSERT_EQ_INT(KIX_OK, kix_signer_generate("rerunner", KIX_NOTE_ALG_ED25519, &rerunner, NULL));
    ASSERT_EQ_INT(KIX_OK, kix_entry_key(f.admin, 0, kix_signer_public_key(rerunner), KIX_ROLE_RERUN,
                                        &env, NULL));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, NULL, 0, &sr));
    kix_submit_result_release(&sr);
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_rerun(rerunner, "run-x", &d, "reproduced", &rd, NULL, &env, NULL));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, objs, 1, &sr));
    kix_submit_result_release(&sr);
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK,
                  kix_entry_supersession(f.publisher, "run-x", &d, "run-y", "fixed", &env, NULL));
    ASSERT_EQ_INT(KIX_OK, fx_submit(&f, &env, NULL, 0, &sr));
    kix_submit_result_release(&sr);
    kix_buf_release(&env);

    cl = fx_client(&f);
    /* by run id, by permalink and by manifest digest: all verify */
    snprintf(ref, sizeof(ref), "https://%s/runs/run-x", FX_ORIGIN);
    const char *refs[] = {"run-x", ref, dtext};
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_INT(KIX_OK, kix_client_resolve(cl, refs[i], &res, &err) &&
                                  (fprintf(stderr, "%s\n", err.msg), 1));
        ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&res, &f.log_key, NULL, &err));
        ASSERT_EQ_STR("run-x", res.run.run_id);
        ASSERT_EQ_U64(pub, res.run.publication_index);
        ASSERT_EQ_INT(KIX_EVIDENCE_REPRODUCED, res.run.evidence);
        ASSERT_EQ_U64(1, res.run.attestations);
        ASSERT_EQ_STR("run-y", res.successor);
        ASSERT_EQ_INT(4, res.nentries);
        ASSERT_EQ_INT(1, res.nobjects); /* the workload */
        ASSERT_EQ_MEM(manifest, strlen(manifest), res.manifest.ptr, res.manifest.len);
        kix_resolution_release(&res);
    }
    ASSERT_EQ_INT(KIX_OK, kix_client_resolve(cl, "run-y", &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&res, &f.log_key, NULL, &err));
    ASSERT_EQ_STR("run-x", res.predecessor);
    kix_resolution_release(&res);
    kix_client_close(cl);

    c = fx_rpc(&f);
    ASSERT_EQ_INT(KIX_OK, callv(c, "resolve", &m, &err, "s", "ref", "run-x"));
    snprintf(ref, sizeof(ref), "https://%s/runs/run-x", FX_ORIGIN);
    ASSERT_EQ_STR(ref, field_text(result_map(&m), "permalink", text, sizeof(text)));
    ASSERT_EQ_STR(dtext, field_text(result_map(&m), "digest", text, sizeof(text)));
    ASSERT_EQ_STR("reproduced", field_text(result_map(&m), "evidence", text, sizeof(text)));
    kix_proto_msg_release(&m);
    EXPECT_ERROR(callv(c, "resolve", &m, &err, "s", "ref", "run-nope"), KIX_ENOTFOUND,
                 "no run run-nope");
    EXPECT_ERROR(callv(c, "resolve", &m, &err, "s", "ref", "bad ref!"), KIX_EINVAL,
                 "neither a permalink");
    EXPECT_ERROR(callv(c, "resolve", &m, &err, ""), KIX_EINVAL, "missing field \"ref\"");
    EXPECT_ERROR(callv(c, "resolve", &m, &err, "b", "ref", "run-x", (size_t)5), KIX_EINVAL,
                 "expected str, got bin");
    kix_signer_free(rerunner);
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

/* A run with more entries than one answer holds resolves in pages, each
 * proven; the entry chain closes only over all of them, so a page that
 * skips or a server that stops early is caught. */
KIX_TEST(resolve_pages)
{
    static const char *const extra[] = {"--max-entries", "10", NULL};
    enum { ATTESTATIONS = 25 };
    struct fx f;
    struct kix_client *cl;
    struct kix_err err = {0};
    struct kix_resolution res, page;
    struct kix_buf env[ATTESTATIONS];
    struct kix_bundle b[ATTESTATIONS];
    struct kix_submit_result sr[ATTESTATIONS];
    struct kix_digest d;
    char manifest[512], note[32];

    ASSERT_EQ_INT(0, fx_start_opts(&f, 0, extra));
    ASSERT_EQ_INT(KIX_OK, fx_publish(&f, "run-p", 1, NULL));
    fx_manifest(manifest, sizeof(manifest), 1);
    fx_digest_of_json(manifest, &d);
    for (int i = 0; i < ATTESTATIONS; i++) {
        kix_buf_init(&env[i]);
        snprintf(note, sizeof(note), "seen it %d", i);
        ASSERT_EQ_INT(
            KIX_OK, kix_entry_attestation(f.publisher, "run-p", &d, note, NULL, 0, &env[i], NULL));
        b[i].envelope = kix_buf_bytes(&env[i]);
        b[i].objects = NULL;
        b[i].nobjects = 0;
    }
    cl = fx_client(&f);
    ASSERT_EQ_INT(KIX_OK, kix_client_submit(cl, b, ATTESTATIONS, sr, &err));
    for (int i = 0; i < ATTESTATIONS; i++) {
        ASSERT_EQ_INT(0, sr[i].code);
        kix_submit_result_release(&sr[i]);
        kix_buf_release(&env[i]);
    }
    /* the first page: proven, not complete */
    ASSERT_EQ_INT(KIX_OK, kix_client_resolve(cl, "run-p", &res, &err));
    ASSERT_EQ_INT(KIX_OK, kix_resolution_verify(&res, &f.log_key, NULL, &err));
    ASSERT_EQ_U64(10, res.nentries);
    ASSERT_EQ_INT(0, res.complete);
    ASSERT_EQ_U64(1 + ATTESTATIONS, res.record.info.entries);
    /* a page that skips entries is refused */
    ASSERT_EQ_INT(KIX_OK, kix_client_resolve_from(cl, "run-p", 12, &page, &err));
    ASSERT_EQ_INT(KIX_EVERIFY, kix_resolution_merge(&res, &page, &f.log_key, NULL, &err));
    ASSERT_CONTAINS(err.msg, "starts at 12, not after the 10 seen");
    kix_resolution_release(&page);
    /* the rest, page after page */
    while (!res.complete) {
        ASSERT_EQ_INT(KIX_OK, kix_client_resolve_from(cl, "run-p", res.chained, &page, &err));
        ASSERT_EQ_INT(KIX_OK, kix_resolution_merge(&res, &page, &f.log_key, NULL, &err));
        kix_resolution_release(&page);
    }
    ASSERT_EQ_U64(1 + ATTESTATIONS, res.nentries);
    ASSERT_EQ_U64(ATTESTATIONS, res.run.attestations);
    for (size_t i = 1; i < res.nentries; i++)
        ASSERT_TRUE(res.entries[i].index > res.entries[i - 1].index);
    kix_resolution_release(&res);
    /* past the end: refused by the server */
    ASSERT_EQ_INT(KIX_EINVAL, kix_client_resolve_from(cl, "run-p", 27, &page, &err));
    kix_client_close(cl);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(follow_errors)
{
    struct fx f;
    struct kix_rpc *c;
    struct kix_proto_msg m;
    struct kix_err err;

    ASSERT_EQ_INT(0, fx_start(&f));
    c = fx_rpc(&f);
    EXPECT_ERROR(callv(c, "follow", &m, &err, ""), KIX_EINVAL, "missing field \"from\"");
    EXPECT_ERROR(callv(c, "follow", &m, &err, "u", "from", (uint64_t)3), KIX_EINVAL,
                 "beyond the end of the log (size 2)");
    ASSERT_EQ_INT(KIX_OK, callv(c, "follow", &m, &err, "u", "from", (uint64_t)2));
    ASSERT_EQ_U64(2, field_u64(result_map(&m), "size"));
    kix_proto_msg_release(&m);
    EXPECT_ERROR(callv(c, "follow", &m, &err, "u", "from", (uint64_t)0), KIX_EINVAL,
                 "already follows");
    kix_rpc_close(c);
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    fx_cleanup(&f);
}

KIX_TEST(mirror_store_is_served_read_only)
{
    struct fx f, m;
    struct kix_rpc *c;
    struct kix_proto_msg msg;
    struct kix_err err;
    struct kix_buf env = KIX_BUF_INIT;
    char manifest[512];
    bool mirror = false;

    ASSERT_EQ_INT(0, fx_start(&f));
    /* an empty replica of f's log: no log key, served read-only when said */
    memset(&m, 0, sizeof(m));
    snprintf(m.dir, sizeof(m.dir), "%.100s-mirror", f.dir);
    snprintf(m.sock_path, sizeof(m.sock_path), "%.100s-msock", f.dir);
    snprintf(m.addr, sizeof(m.addr), "unix://%s", m.sock_path);
    snprintf(m.log, sizeof(m.log), "%.100s-mirror.log", f.dir);
    ASSERT_EQ_INT(KIX_OK, kix_index_create_replica(m.dir, &f.log_key, NULL, &err));
    fx_add_arg(&m, "--read-only");
    ASSERT_EQ_INT(0, fx_serve(&m));
    c = fx_rpc(&m);
    ASSERT_EQ_INT(KIX_OK, callv(c, "info", &msg, &err, ""));
    ASSERT_EQ_INT(KIX_OK, kix_proto_map_get_bool(result_map(&msg), "mirror", &mirror, NULL));
    ASSERT_TRUE(mirror);
    ASSERT_EQ_U64(0, field_u64(result_map(&msg), "size"));
    kix_proto_msg_release(&msg);
    ASSERT_EQ_INT(KIX_OK, fx_publication(&f, "run-m", 1, &env, manifest));
    {
        struct raw_bundle b[1] = {{env.ptr, env.len, NULL, 0, 0}};
        struct raw_submit s = {b, 1};
        EXPECT_ERROR(kix_rpc_call(c, "submit", put_raw_submit, &s, &msg, &err), KIX_EREADONLY,
                     "read-only mirror");
    }
    EXPECT_ERROR(callv(c, "checkpoint", &msg, &err, ""), KIX_ENOTFOUND, "size 0");
    kix_rpc_close(c);
    kix_buf_release(&env);
    ASSERT_EQ_INT(0, fx_stop(&m, SIGTERM));
    ASSERT_EQ_INT(0, fx_stop(&f, SIGTERM));
    unlink(m.sock_path);
    unlink(m.log);
    if (kix_dir_remove_tree(m.dir, NULL) != KIX_OK)
        fprintf(stderr, "could not clean up the mirror\n");
    fx_cleanup(&f);
}

KIX_TEST_MAIN()
