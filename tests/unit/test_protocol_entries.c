/* The worked entry examples of proto/PROTOCOL.md section 5: the keys, the
 * objects of one run, a key entry, a publication, an attestation, a rerun,
 * a supersession, a policy entry and an open note (with its proof of work)
 * as kix's own builders (kix/entries.h) sign them, and the run's comparison
 * key as kix/manifest.h computes it. Each must appear
 * byte for byte in the document in the fenced block after its
 * `<!-- entry-example NAME -->` marker. With KIX_PRINT_EXAMPLES set, the
 * `print` case writes every block to stdout instead (for writing the
 * document). tests/integration/protocol_entries.py recomputes the same
 * blocks from the document's text alone, without kix. */
#include "fixture.h"
#include "harness.h"
#include "kix/canon.h"
#include "kix/digest.h"
#include "kix/dsse.h"
#include "kix/entries.h"
#include "kix/manifest.h"
#include "kix/merkle.h"
#include "kix/note.h"
#include "kix/sha256.h"

#define NEX 64

struct block {
    const char *name;
    char *text; /* malloc'ed */
};

struct examples {
    struct block b[NEX];
    size_t n;
};

static void add(struct examples *ex, const char *name, const void *text, size_t len)
{
    char *t = malloc(len + 1);
    if (!t || ex->n == NEX)
        abort();
    memcpy(t, text, len);
    t[len] = '\0';
    ex->b[ex->n].name = name;
    ex->b[ex->n].text = t;
    ex->n++;
}

static void adds(struct examples *ex, const char *name, const char *text)
{
    add(ex, name, text, strlen(text));
}

static void examples_release(struct examples *ex)
{
    for (size_t i = 0; i < ex->n; i++)
        free(ex->b[i].text);
    ex->n = 0;
}

static struct kix_signer *signer(uint8_t first, const char *name)
{
    uint8_t seed[32];
    struct kix_signer *s = NULL;
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(first + i);
    if (kix_signer_from_seed(name, KIX_NOTE_ALG_ED25519, seed, &s, NULL))
        abort();
    return s;
}

static void key_blocks(struct examples *ex, uint8_t first, const struct kix_signer *s,
                       const char *seed_name, const char *pub_name, const char *id_name)
{
    char b64[64], id[65], seed_hex[65];
    uint8_t seed[32];
    struct kix_buf b = KIX_BUF_INIT;

    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(first + i);
    kix_hex_encode(seed, 32, seed_hex);
    adds(ex, seed_name, seed_hex);

    if (kix_base64_encode(kix_signer_public_key(s), 32, &b))
        abort();
    snprintf(b64, sizeof(b64), "%s", (const char *)b.ptr);
    kix_buf_release(&b);
    kix_key_id(kix_signer_public_key(s), id);
    adds(ex, pub_name, b64);
    adds(ex, id_name, id);
}

/* An object: its canonical bytes and digest as blocks; *d its digest. */
static void object(struct examples *ex, const char *name, const char *digest_name, const char *json,
                   struct kix_digest *d)
{
    struct kix_buf c = KIX_BUF_INIT;
    char text[KIX_DIGEST_TEXT_LEN + 1];

    if (kix_canon((const uint8_t *)json, strlen(json), NULL, &c, NULL))
        abort();
    kix_digest_of(c.ptr, c.len, d);
    kix_digest_format(d, text);
    add(ex, name, c.ptr, c.len);
    adds(ex, digest_name, text);
    kix_buf_release(&c);
}

/* An entry: its statement (the envelope's payload), envelope and leaf hash
 * as blocks. */
static void entry(struct examples *ex, const char *stmt_name, const char *env_name,
                  const char *leaf_name, struct kix_buf *env)
{
    struct kix_dsse_envelope d;
    struct kix_hash h;
    char hex[65];

    kix_dsse_envelope_init(&d);
    if (kix_dsse_parse(env->ptr, env->len, &d, NULL))
        abort();
    add(ex, stmt_name, d.payload.ptr, d.payload.len);
    kix_dsse_envelope_release(&d);
    kix_merkle_leaf_hash(env->ptr, env->len, &h);
    kix_hex_encode(h.b, 32, hex);
    add(ex, env_name, env->ptr, env->len);
    adds(ex, leaf_name, hex);
    kix_buf_release(env);
}

/* An open note's proof of work as blocks: its PAE (what is signed and
 * hashed), the statement hash (SHA-256 of the PAE) and the hash's leading
 * zero bits, which the log compares with its policy's noteWork. */
static void open_note_blocks(struct examples *ex, const struct kix_buf *env)
{
    struct kix_dsse_envelope d;
    struct kix_buf pae = KIX_BUF_INIT;
    uint8_t h[32];
    char hex[65], bits[16];

    kix_dsse_envelope_init(&d);
    if (kix_dsse_parse(env->ptr, env->len, &d, NULL) ||
        kix_dsse_pae(KIX_DSSE_INTOTO_TYPE, strlen(KIX_DSSE_INTOTO_TYPE), d.payload.ptr,
                     d.payload.len, &pae))
        abort();
    kix_sha256(pae.ptr, pae.len, h);
    kix_hex_encode(h, 32, hex);
    snprintf(bits, sizeof(bits), "%u", kix_work_bits(h));
    add(ex, "open-note.pae", pae.ptr, pae.len);
    adds(ex, "open-note.statement-hash", hex);
    adds(ex, "open-note.work-bits", bits);
    kix_buf_release(&pae);
    kix_dsse_envelope_release(&d);
}

/* A BenchmarkRun of the example's rope kernel without measurements: its
 * date, median and source, naming the four records in `text`. */
static void run_of(char *json, size_t cap, const char *observed, int median, const char *source,
                   char text[4][KIX_DIGEST_TEXT_LEN + 1])
{
    snprintf(json, cap,
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
             "{\"name\":\"rope-liger-a100\"},\"spec\":"
             "{\"status\":\"passed\",\"observedAt\":\"%s\",\"timing\":"
             "{\"latencyNs\":{\"median\":%d},\"primaryStatistic\":\"median\"},"
             "\"sourceNative\":{\"source\":\"%s\",\"benchmark\":\"rope/forward\"},"
             "\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\",\"environmentDigest\":\"%s\","
             "\"implementationDigest\":\"%s\"}}",
             observed, median, source, text[0], text[1], text[2], text[3]);
}

#define RUN1 "example-run-1"
#define RUN2 "example-run-2"
/* The example log's origin (its log key's name), which an open note names. */
#define EXAMPLE_ORIGIN "log.example"
/* The proof of work the example policy asks of an open note: small, so that
 * kix_entry_open_note's grind (from nonce 0, so always the same nonce) and
 * a stranger's check stay instant. */
#define EXAMPLE_NOTE_WORK 8u

static void build(struct examples *ex)
{
    struct kix_signer *log = signer(0x01, EXAMPLE_ORIGIN), *pub = signer(0x41, "publisher"),
                      *rer = signer(0x61, "rerunner"), *com = signer(0x81, "community");
    struct kix_digest w, p, e, i, run, rerun, run2, key;
    struct kix_buf env = KIX_BUF_INIT, canon = KIX_BUF_INIT;
    char text[4][KIX_DIGEST_TEXT_LEN + 1], json[2048], metric[16];
    uint64_t value;

    memset(ex, 0, sizeof(*ex));
    key_blocks(ex, 0x01, log, "log-key.seed", "log-key.public", "log-key.keyid");
    key_blocks(ex, 0x41, pub, "publisher-key.seed", "publisher-key.public", "publisher-key.keyid");
    key_blocks(ex, 0x61, rer, "rerunner-key.seed", "rerunner-key.public", "rerunner-key.keyid");
    key_blocks(ex, 0x81, com, "note-key.seed", "note-key.public", "note-key.keyid");
    adds(ex, "log-key.origin", EXAMPLE_ORIGIN);

    object(ex, "workload", "workload.digest",
           "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Workload\",\"metadata\":"
           "{\"name\":\"rope-seq2048\"},\"spec\":{\"kernel\":\"rope\",\"dtype\":\"bfloat16\","
           "\"parameters\":{\"seq_len\":2048,\"hidden\":512,\"num_q_heads\":32,"
           "\"num_kv_heads\":8}}}",
           &w);
    object(ex, "protocol", "protocol.digest",
           "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkProtocol\","
           "\"metadata\":{\"name\":\"rope-bench-forward\"},\"spec\":{\"harness\":{\"name\":"
           "\"example bench\"},\"measurement\":{\"timer\":"
           "\"cuda_events\",\"primaryStatistic\":\"median\",\"metric\":\"latency\",\"pass\":"
           "\"forward\"}}}",
           &p);
    object(ex, "environment", "environment.digest",
           "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"ExecutionEnvironment\","
           "\"metadata\":{\"name\":\"nvidia-a100\"},\"spec\":{\"hardware\":{\"vendor\":\"nvidia\","
           "\"product\":\"NVIDIA A100\","
           "\"architecture\":\"sm_80\"},\"software\":{\"cudaVersion\":\"12.4\"}}}",
           &e);
    object(ex, "implementation", "implementation.digest",
           "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"Implementation\",\"metadata\":"
           "{\"name\":\"liger-rope\"},\"spec\":"
           "{\"provider\":\"liger\",\"name\":\"Liger\",\"project\":\"Liger-Kernel\"}}",
           &i);
    kix_digest_format(&w, text[0]);
    kix_digest_format(&p, text[1]);
    kix_digest_format(&e, text[2]);
    kix_digest_format(&i, text[3]);
    snprintf(json, sizeof(json),
             "{\"apiVersion\":\"kernelindex.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":"
             "{\"name\":\"rope-liger-a100\"},\"spec\":"
             "{\"status\":\"passed\",\"observedAt\":\"2026-11-30T12:00:00Z\",\"timing\":"
             "{\"latencyNs\":{\"median\":11360},\"primaryStatistic\":\"median\"},"
             "\"measurements\":[{\"metric\":\"latency\",\"statistic\":\"p20\",\"unit\":\"ns\","
             "\"value\":10336},{\"metric\":\"latency\",\"statistic\":\"p80\",\"unit\":\"ns\","
             "\"value\":11456}],\"sourceNative\":{\"source\":\"example\",\"benchmark\":"
             "\"rope/forward\"},\"workloadDigest\":\"%s\",\"protocolDigest\":\"%s\","
             "\"environmentDigest\":\"%s\",\"implementationDigest\":\"%s\"}}",
             text[0], text[1], text[2], text[3]);
    object(ex, "run", "run.digest", json, &run);
    /* the rerun: same workload, protocol and implementation, its own date and figures */
    run_of(json, sizeof(json), "2026-12-03T08:00:00Z", 11420, "example rerun", text);
    object(ex, "rerun-run", "rerun-run.digest", json, &rerun);
    /* the correction that supersedes the run: another median */
    run_of(json, sizeof(json), "2026-11-30T12:00:00Z", 11630, "example", text);
    object(ex, "corrected-run", "corrected-run.digest", json, &run2);

    /* entry 0: the log key registers the publisher with every role */
    if (kix_entry_key(log, 0, kix_signer_public_key(pub),
                      KIX_ROLE_ADMIN | KIX_ROLE_PUBLISH | KIX_ROLE_ATTEST | KIX_ROLE_RERUN, &env,
                      NULL))
        abort();
    entry(ex, "key.statement", "key.envelope", "key.leaf-hash", &env);
    /* entry 1: the publisher, as admin, registers a rerunner: a run's
     * controlled rerun is never signed by the key that published it */
    if (kix_entry_key(pub, 0, kix_signer_public_key(rer), KIX_ROLE_RERUN, &env, NULL))
        abort();
    entry(ex, "rerunner-key-entry.statement", "rerunner-key-entry.envelope",
          "rerunner-key-entry.leaf-hash", &env);
    if (kix_entry_publication(pub, RUN1, &run, "2026-12-01T12:00:00Z", "example benchmarks",
                              "CC0-1.0", &env, NULL))
        abort();
    entry(ex, "publication.statement", "publication.envelope", "publication.leaf-hash", &env);
    if (kix_entry_attestation_at(pub, RUN1, &run, "reproduced on my A100: 11.5 us median", NULL, 0,
                                 "2026-12-02T09:30:00Z", &env, NULL))
        abort();
    entry(ex, "attestation.statement", "attestation.envelope", "attestation.leaf-hash", &env);
    if (kix_entry_rerun(rer, RUN1, &run, "reproduced", &rerun, "2026-12-03T08:00:00Z", &env, NULL))
        abort();
    entry(ex, "rerun.statement", "rerun.envelope", "rerun.leaf-hash", &env);
    if (kix_entry_supersession_at(pub, RUN1, &run, RUN2, "the median was misread from the log",
                                  "2026-12-04T10:00:00Z", &env, NULL))
        abort();
    entry(ex, "supersession.statement", "supersession.envelope", "supersession.leaf-hash", &env);
    /* entry 7: the publisher, as admin, opens the log to notes from
     * unregistered keys; the subject digest is the log key's id */
    {
        uint8_t log_id[32];
        kix_sha256(kix_signer_public_key(log), 32, log_id);
        if (kix_entry_policy(pub, log_id, 1, EXAMPLE_NOTE_WORK, "2026-12-05T08:00:00Z", &env, NULL))
            abort();
    }
    entry(ex, "policy.statement", "policy.envelope", "policy.leaf-hash", &env);
    /* entry 8: an open note from a key no entry registers, about the
     * successor run, ground to the policy's work */
    if (kix_entry_open_note(com, EXAMPLE_ORIGIN, RUN2, &run2,
                            "ran it on my A100 too: 11.6 us median", NULL, 0,
                            "2026-12-05T14:00:00Z", EXAMPLE_NOTE_WORK, &env, NULL))
        abort();
    open_note_blocks(ex, &env);
    entry(ex, "open-note.statement", "open-note.envelope", "open-note.leaf-hash", &env);

    /* the run's comparison key */
    {
        struct kix_buf run_canon = KIX_BUF_INIT;
        for (size_t k = 0; k < ex->n; k++)
            if (strcmp(ex->b[k].name, "run") == 0 &&
                kix_buf_adds(&run_canon, ex->b[k].text) != KIX_OK)
                abort();
        if (kix_run_comparison_key(run_canon.ptr, run_canon.len, &key, &value, metric) != KIX_OK)
            abort();
        kix_buf_release(&run_canon);
    }
    snprintf(json, sizeof(json),
             "{\"benchmark\":\"rope/forward\",\"environmentDigest\":\"%s\",\"metric\":\"%s\","
             "\"protocolDigest\":\"%s\",\"workloadDigest\":\"%s\"}",
             text[2], metric, text[1], text[0]);
    if (kix_canon((const uint8_t *)json, strlen(json), NULL, &canon, NULL))
        abort();
    add(ex, "comparison-key.object", canon.ptr, canon.len);
    {
        struct kix_digest again;
        kix_digest_of(canon.ptr, canon.len, &again);
        if (memcmp(again.b, key.b, 32) != 0)
            abort(); /* the object written here is the one kix digests */
    }
    kix_digest_format(&key, text[0]);
    adds(ex, "comparison-key", text[0]);
    kix_buf_release(&canon);
    kix_signer_free(log);
    kix_signer_free(pub);
    kix_signer_free(rer);
    kix_signer_free(com);
}

/* The fenced block after `<!-- entry-example NAME -->` (malloc'ed), or NULL. */
static char *doc_block(const char *doc, const char *name)
{
    char marker[128];
    const char *p, *start, *end;
    char *out;

    snprintf(marker, sizeof(marker), "<!-- entry-example %s -->", name);
    p = strstr(doc, marker);
    if (!p || !(p = strstr(p, "```")) || !(start = strchr(p, '\n')))
        return NULL;
    start++;
    end = strstr(start, "\n```");
    if (!end)
        return NULL;
    out = malloc((size_t)(end - start) + 1);
    if (!out)
        abort();
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    return out;
}

KIX_TEST(entries_match_the_document)
{
    struct examples ex;
    char *doc = kix_test_read_file("../proto/PROTOCOL.md", NULL);

    ASSERT_TRUE(doc != NULL);
    build(&ex);
    ASSERT_TRUE(ex.n >= 30);
    for (size_t i = 0; i < ex.n; i++) {
        char *got = doc_block(doc, ex.b[i].name);
        if (!got || strcmp(got, ex.b[i].text) != 0)
            KIX_FAIL_AT("example %s: PROTOCOL.md has\n%s\nkix builds\n%s\n"
                        "(KIX_PRINT_EXAMPLES=1 test_protocol_entries print)",
                        ex.b[i].name, got ? got : "(no such block)", ex.b[i].text);
        free(got);
    }
    examples_release(&ex);
    free(doc);
}

/* The examples are entries a log accepts in this order: they parse as kix
 * entries of the types they claim, signed by the key named. */
KIX_TEST(entries_parse_as_their_kind)
{
    static const struct {
        const char *name;
        int type;
    } want[] = {
        {"key.envelope", KIX_ENTRY_KEY},
        {"rerunner-key-entry.envelope", KIX_ENTRY_KEY},
        {"publication.envelope", KIX_ENTRY_PUBLICATION},
        {"attestation.envelope", KIX_ENTRY_ATTESTATION},
        {"rerun.envelope", KIX_ENTRY_RERUN},
        {"supersession.envelope", KIX_ENTRY_SUPERSESSION},
        {"policy.envelope", KIX_ENTRY_POLICY},
        {"open-note.envelope", KIX_ENTRY_ATTESTATION},
    };
    struct examples ex;

    build(&ex);
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
        for (size_t i = 0; i < ex.n; i++) {
            struct kix_entry e;
            struct kix_err err = {0};
            if (strcmp(ex.b[i].name, want[k].name) != 0)
                continue;
            memset(&e, 0, sizeof(e));
            ASSERT_EQ_INT(KIX_OK, kix_entry_parse_leaf((const uint8_t *)ex.b[i].text,
                                                       strlen(ex.b[i].text), &e, &err));
            ASSERT_EQ_INT(want[k].type, e.type);
            if (strcmp(want[k].name, "open-note.envelope") == 0) {
                ASSERT_TRUE(e.open_note);
                ASSERT_EQ_STR(EXAMPLE_ORIGIN, e.note_log);
            }
            kix_entry_release(&e);
        }
    examples_release(&ex);
}

static const char *block(const struct examples *ex, const char *name)
{
    for (size_t i = 0; i < ex->n; i++)
        if (strcmp(ex->b[i].name, name) == 0)
            return ex->b[i].text;
    abort();
}

/* Submits one example envelope with its objects; its leaf hash in the log
 * must be the document's. */
static void submit_example(struct fixture *f, const struct examples *ex, const char *name,
                           const char *const *objects, size_t n)
{
    char env_name[64], leaf_name[64], hex[65];
    struct kix_buf env = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};

    snprintf(env_name, sizeof(env_name), "%s.envelope", name);
    snprintf(leaf_name, sizeof(leaf_name), "%s.leaf-hash", name);
    if (kix_buf_adds(&env, block(ex, env_name)))
        abort();
    if (submit(f, &env, objects, n, &res, &err) != KIX_OK)
        KIX_FAIL_AT("the %s example is refused: %s", name, err.msg);
    ASSERT_EQ_INT(0, res.duplicate);
    kix_hex_encode(res.leaf_hash.b, 32, hex);
    ASSERT_EQ_STR(block(ex, leaf_name), hex);
    kix_buf_release(&env);
}

/* The examples are entries a real log accepts in the document's order
 * (entry 0 aside: a log's first entry is signed by its own log key, so here
 * the publisher key is the admin kixd init registers, and re-adds itself
 * with every role). The log is named as the example's (the open note names
 * its origin), but kix_index_create makes its own log key, so the policy
 * entry, whose subject digest is the log key's id, is the document's
 * signed again for this log: the document's own is refused here. */
KIX_TEST(examples_are_accepted_by_a_log)
{
    struct examples ex;
    struct fixture f;
    struct kix_signer *pub = signer(0x41, "publisher");
    struct kix_buf env = KIX_BUF_INIT, vkey = KIX_BUF_INIT;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_digest run2;
    const char *objects[6];

    build(&ex);
    memset(&f, 0, sizeof(f));
    f.dir = temp_dir();
    ASSERT_EQ_INT(KIX_OK, kix_index_create(f.dir, EXAMPLE_ORIGIN, kix_signer_public_key(pub), NULL,
                                           &vkey, &err));
    ASSERT_EQ_INT(KIX_OK, kix_index_open(f.dir, NULL, &f.log, &err));
    ASSERT_EQ_INT(
        KIX_OK, kix_entry_key(pub, 0, kix_signer_public_key(pub),
                              KIX_ROLE_ADMIN | KIX_ROLE_PUBLISH | KIX_ROLE_ATTEST | KIX_ROLE_RERUN,
                              &env, &err));
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    kix_buf_reset(&env);
    objects[0] = block(&ex, "run");
    objects[1] = block(&ex, "workload");
    objects[2] = block(&ex, "protocol");
    objects[3] = block(&ex, "environment");
    objects[4] = block(&ex, "implementation");
    submit_example(&f, &ex, "rerunner-key-entry", NULL, 0);
    submit_example(&f, &ex, "publication", objects, 5);
    submit_example(&f, &ex, "attestation", NULL, 0);
    objects[0] = block(&ex, "rerun-run");
    submit_example(&f, &ex, "rerun", objects, 1);
    /* entry 5: the successor, an ordinary publication */
    digest_of_json(block(&ex, "corrected-run"), &run2);
    ASSERT_EQ_INT(KIX_OK, kix_entry_publication(pub, RUN2, &run2, "2026-12-04T09:59:00Z", NULL,
                                                NULL, &env, &err));
    objects[0] = block(&ex, "corrected-run");
    ASSERT_EQ_INT(KIX_OK, submit(&f, &env, objects, 1, &res, &err));
    submit_example(&f, &ex, "supersession", NULL, 0);

    /* entry 8 before entry 7: no policy has opened the log to notes yet */
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&env, block(&ex, "open-note.envelope")));
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, NULL, 0, &res, &err));
    ASSERT_CONTAINS(err.msg, "this log takes no open notes");
    /* the document's policy entry names the example's log key, not this log's */
    kix_buf_reset(&env);
    ASSERT_EQ_INT(KIX_OK, kix_buf_adds(&env, block(&ex, "policy.envelope")));
    ASSERT_EQ_INT(KIX_EPOLICY, submit(&f, &env, NULL, 0, &res, &err));
    ASSERT_CONTAINS(err.msg, "subject digest must be this log key's id");
    /* entry 7 for this log: the same predicate, this log key's id */
    {
        uint8_t log_id[32];
        kix_buf_reset(&env);
        kix_sha256(kix_log_verifier(f.log)->pub, 32, log_id);
        ASSERT_EQ_INT(KIX_OK, kix_entry_policy(pub, log_id, 1, EXAMPLE_NOTE_WORK,
                                               "2026-12-05T08:00:00Z", &env, &err));
        ASSERT_EQ_INT(KIX_OK, submit(&f, &env, NULL, 0, &res, &err));
    }
    /* entry 8, the document's bytes: now taken, from a key no entry registers */
    submit_example(&f, &ex, "open-note", NULL, 0);
    kix_buf_release(&env);
    kix_buf_release(&vkey);
    kix_log_close(f.log);
    remove_dir(f.dir);
    kix_signer_free(pub);
    examples_release(&ex);
}

KIX_TEST(print)
{
    struct examples ex;

    if (!getenv("KIX_PRINT_EXAMPLES"))
        return;
    build(&ex);
    for (size_t i = 0; i < ex.n; i++)
        printf("<!-- entry-example %s -->\n\n```\n%s\n```\n\n", ex.b[i].name, ex.b[i].text);
    examples_release(&ex);
}

KIX_TEST_MAIN()
