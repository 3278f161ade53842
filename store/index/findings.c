/* Findings: replayed entries that today's origin rules refuse (kix/index.h).
 * The indexer notes each while it applies the entry; kix audit, a mirror
 * and kixd check list them. */
#include <string.h>

#include "index_internal.h"
#include "kix/encoding.h"

/* a finding's message is one line of the rule's wording and the entry's ids */
#define FINDING_TEXT_MAX 1024

const char *kix_finding_rule_name(int rule)
{
    switch (rule) {
    case KIX_FINDING_RUN_ID:
        return "run-id";
    case KIX_FINDING_SELF_RERUN:
        return "self-rerun";
    }
    return "unknown";
}

int kix__finding_put(struct kix_log_txn *t, uint64_t index, int rule, const char *message,
                     struct kix_err *err)
{
    uint8_t key[8], val[1 + FINDING_TEXT_MAX];
    size_t len = strlen(message);

    if (len > FINDING_TEXT_MAX)
        len = FINDING_TEXT_MAX;
    kix_u64be_put(key, index);
    val[0] = (uint8_t)rule;
    memcpy(val + 1, message, len);
    return kix_log_txn_put(t, KIX_TABLE_FINDINGS, key, sizeof(key), val, 1 + len, err);
}

struct scan {
    kix_finding_fn fn;
    void *ctx;
    uint64_t n;
    char text[FINDING_TEXT_MAX + 1];
};

static int finding_step(void *arg, const struct kix_bytes *key, const struct kix_bytes *val)
{
    struct scan *s = arg;
    struct kix_finding f;

    if (key->len != 8 || val->len < 1 || val->len > 1 + FINDING_TEXT_MAX)
        return KIX_ECORRUPT;
    memcpy(s->text, val->ptr + 1, val->len - 1);
    s->text[val->len - 1] = '\0';
    f.index = kix_u64be_get(key->ptr);
    f.rule = val->ptr[0];
    f.name = kix_finding_rule_name(f.rule);
    f.text = s->text;
    s->n++;
    return s->fn ? s->fn(s->ctx, &f) : 0;
}

int kix_index_findings(struct kix_log_reader *r, uint64_t from, kix_finding_fn fn, void *ctx,
                       uint64_t *n)
{
    struct scan s = {fn, ctx, 0, ""};
    uint8_t key[8];
    int rc;

    kix_u64be_put(key, from);
    rc = kix_log_txn_scan(kix_log_reader_txn(r), KIX_TABLE_FINDINGS, key, sizeof(key), finding_step,
                          &s);
    if (rc == KIX_ENOTFOUND)
        rc = KIX_OK; /* an index of another format: a writable open rebuilds it */
    if (n)
        *n = s.n;
    return rc;
}
