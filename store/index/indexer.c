/* The index's rules and writes for each entry the log appends: runs,
 * evidence, supersession and comparison groups (struct kix_log_indexer). */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "index_internal.h"
#include "kix/assert.h"
#include "kix/encoding.h"
#include "kix/vindex.h"

static int check_run_subject(const struct kix_entry *e, const struct kix_run_info *run,
                             struct kix_err *err)
{
    if (memcmp(run->manifest.b, e->subject.b, 32) != 0)
        return kix_err_set(err, KIX_EPOLICY,
                           "the statement's subject is not the manifest of run %s", e->run_id);
    return KIX_OK;
}

static int find_run(struct kix_log_txn *t, const char *id, size_t len, struct kix_run_info *run,
                    struct kix_err *err)
{
    int rc = kix__run_get(t, id, len, run);
    if (rc == KIX_ENOTFOUND)
        return kix_err_set(err, KIX_EPOLICY, "run %.*s is not published in this log", (int)len, id);
    if (rc)
        return kix_err_set(err, rc, "reading run %.*s: %s", (int)len, id, kix_strerror(rc));
    return KIX_OK;
}

struct first_publication {
    uint64_t index;
};

static int first_publication(void *ctx, uint64_t index, int type)
{
    struct first_publication *f = ctx;
    if (type != KIX_ENTRY_PUBLICATION)
        return 0;
    f->index = index;
    return 1;
}

/* One manifest, one run: the same measurement published under a second run
 * id would be ranked twice and resolve by digest to the first. */
static int check_manifest_unpublished(struct kix_log_txn *t, const struct kix_entry *e,
                                      struct kix_err *err)
{
    struct first_publication f = {KIX_NO_INDEX};
    struct kix_bytes leaf;
    struct kix_entry other;
    char text[KIX_DIGEST_TEXT_LEN + 1];
    int rc = kix_log_txn_subject_entries(t, &e->subject, first_publication, &f);

    if (rc || f.index == KIX_NO_INDEX)
        return rc;
    kix_digest_format(&e->subject, text);
    memset(&other, 0, sizeof(other));
    if (kix_log_txn_entry(t, f.index, &leaf) == KIX_OK &&
        kix_entry_parse_leaf(leaf.ptr, leaf.len, &other, NULL) == KIX_OK)
        kix_entry_release(&other);
    return kix_err_set(err, KIX_EPOLICY,
                       "manifest %s is already published as run %s (log index %llu); a manifest "
                       "is published once: attest or rerun that run instead, or, if this is a "
                       "new measurement with the same figures, publish it with --new-run (kix "
                       "publish --new-run writes the new run id into the manifest's "
                       "metadata.runId, which gives it a digest of its own)",
                       text, other.run_id[0] ? other.run_id : "?", (unsigned long long)f.index);
}

/* Who may withdraw or reinstate a run (the log admitted the signer with
 * role curate or publish): a curator any run; the publisher its own run,
 * and it may undo only a withdrawal it signed itself, so that no publisher
 * can put back a run a curator took out. */
static int check_moderation(struct kix_log_txn *t, const struct kix_entry *e,
                            const struct kix_run_info *run, struct kix_err *err)
{
    struct kix_key_info key;
    struct kix_bytes leaf;
    struct kix_entry w;
    int curator = kix_log_txn_key(t, e->signer, &key) == KIX_OK && (key.roles & KIX_ROLE_CURATE);
    int publisher = memcmp(run->publisher, e->signer, 32) == 0, by_publisher = 0;

    if (e->type == KIX_ENTRY_WITHDRAWAL) {
        if (run->withdrawn_index != KIX_NO_INDEX)
            return kix_err_set(err, KIX_EPOLICY,
                               "run %s is already withdrawn (log index %llu); reinstate it first "
                               "to withdraw it again",
                               e->run_id, (unsigned long long)run->withdrawn_index);
        if (!curator && !publisher)
            return kix_err_set(err, KIX_EPOLICY,
                               "only a key with role curate or the publisher of run %s may "
                               "withdraw it (kix key add --role curate)",
                               e->run_id);
        return KIX_OK;
    }
    if (run->withdrawn_index == KIX_NO_INDEX)
        return kix_err_set(err, KIX_EPOLICY,
                           "run %s is not withdrawn; a reinstatement undoes a withdrawal",
                           e->run_id);
    if (curator)
        return KIX_OK;
    memset(&w, 0, sizeof(w));
    if (kix_log_txn_entry(t, run->withdrawn_index, &leaf) == KIX_OK &&
        kix_entry_parse_leaf(leaf.ptr, leaf.len, &w, NULL) == KIX_OK) {
        by_publisher = memcmp(w.signer, run->publisher, 32) == 0;
        kix_entry_release(&w);
    }
    if (publisher && by_publisher)
        return KIX_OK;
    return kix_err_set(err, KIX_EPOLICY,
                       "only a key with role curate%s may reinstate run %s (withdrawn at log "
                       "index %llu%s)",
                       by_publisher ? " or the run's publisher" : "", e->run_id,
                       (unsigned long long)run->withdrawn_index,
                       by_publisher ? "" : " by a curator");
}

/* The rules of each run entry; fills the run records the writes update. */
static int check_entry(struct kix_log_txn *t, const struct kix_entry *e, struct kix_run_info *run,
                       struct kix_run_info *new_run, int checking, struct kix_err *err)
{
    int rc;

    switch (e->type) {
    case KIX_ENTRY_KEY:
    case KIX_ENTRY_POLICY:
        return KIX_OK; /* the log's key registry and policy */
    case KIX_ENTRY_PUBLICATION:
        rc = kix__run_get(t, e->run_id, e->run_id_len, run);
        if (rc == KIX_OK)
            return kix_err_set(err, KIX_EPOLICY,
                               "run id %s is already published (log index %llu); a run id is "
                               "published once",
                               e->run_id, (unsigned long long)run->publication_index);
        if (rc != KIX_ENOTFOUND)
            return rc;
        /* (apply runs after the log wrote the entry's own subject index) */
        return checking ? check_manifest_unpublished(t, e, err) : KIX_OK;
    case KIX_ENTRY_ATTESTATION:
    case KIX_ENTRY_RERUN:
        rc = find_run(t, e->run_id, e->run_id_len, run, err);
        return rc ? rc : check_run_subject(e, run, err);
    case KIX_ENTRY_WITHDRAWAL:
    case KIX_ENTRY_REINSTATEMENT:
        rc = find_run(t, e->run_id, e->run_id_len, run, err);
        if (rc == KIX_OK)
            rc = check_run_subject(e, run, err);
        return rc || !checking ? rc : check_moderation(t, e, run, err);
    case KIX_ENTRY_SUPERSESSION:
        rc = find_run(t, e->run_id, e->run_id_len, run, err);
        if (rc == KIX_OK)
            rc = check_run_subject(e, run, err);
        if (rc)
            return rc;
        if (memcmp(run->publisher, e->signer, 32) != 0)
            return kix_err_set(err, KIX_EPOLICY,
                               "only the publisher of run %s (the same key) may supersede it",
                               e->run_id);
        if (run->superseded_by_index != KIX_NO_INDEX)
            return kix_err_set(err, KIX_EPOLICY, "run %s was already superseded at log index %llu",
                               e->run_id, (unsigned long long)run->superseded_by_index);
        rc = find_run(t, e->new_run_id, e->new_run_id_len, new_run, err);
        if (rc) {
            kix_err_wrap(err, "publish the successor first");
            return rc;
        }
        if (memcmp(new_run->publisher, e->signer, 32) != 0)
            return kix_err_set(err, KIX_EPOLICY,
                               "the successor run %s must be published by the same key",
                               e->new_run_id);
        /* supersessions form chains: one successor, one predecessor, and a
         * successor that is not itself retired (which also rules out every
         * cycle: closing one would point at a run already superseded) */
        if (new_run->supersedes_index != KIX_NO_INDEX)
            return kix_err_set(err, KIX_EPOLICY,
                               "run %s already succeeds another run (supersession at log index "
                               "%llu); a run has one predecessor",
                               e->new_run_id, (unsigned long long)new_run->supersedes_index);
        if (new_run->superseded_by_index != KIX_NO_INDEX)
            return kix_err_set(err, KIX_EPOLICY,
                               "run %s was itself superseded at log index %llu; point run %s at "
                               "its latest successor",
                               e->new_run_id, (unsigned long long)new_run->superseded_by_index,
                               e->run_id);
        return KIX_OK;
    }
    return kix_err_set(err, KIX_EINVAL, "unknown entry type");
}

static const char *spec_string(const json_t *doc, const char *field)
{
    return json_string_value(json_object_get(json_object_get(doc, "spec"), field));
}

/* A rerun repeats the run: the same workload, implementation and protocol
 * (and kind), measured again somewhere it records. Otherwise it would flip
 * the evidence of a run it never reproduced. */
static int check_rerun_measures(struct kix_log_txn *t, const struct kix_log_item *item,
                                const struct kix_run_info *run, struct kix_err *err)
{
    static const char *const same[] = {"workloadDigest", "implementationDigest", "protocolDigest"};
    struct kix_bytes rb, xb;
    json_t *orig = NULL, *again = NULL;
    const char *k1, *k2;
    int rc = KIX_OK;

    /* a missing rerun manifest is the log's to refuse, by name */
    if (kix_log_item_object(t, item, &run->manifest, &rb) != KIX_OK ||
        kix_log_item_object(t, item, &item->entry->rerun_digest, &xb) != KIX_OK)
        return KIX_OK;
    orig = json_loadb((const char *)rb.ptr, rb.len, 0, NULL);
    again = json_loadb((const char *)xb.ptr, xb.len, 0, NULL);
    if (!orig || !again)
        goto out; /* not JSON objects: the objects check names them */
    k1 = json_string_value(json_object_get(orig, "kind"));
    k2 = json_string_value(json_object_get(again, "kind"));
    if (k1 && (!k2 || strcmp(k1, k2) != 0)) {
        rc = kix_err_set(err, KIX_EPOLICY,
                         "the rerun of run %s is a %s, not a %s like the run it repeats",
                         run->run_id, k2 ? k2 : "manifest without a kind", k1);
        goto out;
    }
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        const char *a = spec_string(orig, same[i]), *b = spec_string(again, same[i]);
        if ((a || b) && (!a || !b || strcmp(a, b) != 0)) {
            rc = kix_err_set(err, KIX_EPOLICY,
                             "the rerun of run %s measures something else: its spec.%s is %s, "
                             "the run's is %s; a rerun repeats the run's workload, "
                             "implementation and protocol",
                             run->run_id, same[i], b ? b : "absent", a ? a : "absent");
            goto out;
        }
    }
    if (spec_string(orig, "environmentDigest") && !spec_string(again, "environmentDigest"))
        rc = kix_err_set(err, KIX_EPOLICY,
                         "the rerun of run %s records no spec.environmentDigest: a rerun says "
                         "where it ran",
                         run->run_id);
out:
    json_decref(orig);
    json_decref(again);
    return rc;
}

/* A manifest that names its run (metadata.runId, what kix publish --new-run
 * writes) is published as that run and no other: else one measurement
 * could claim to be another run's, on every page that shows it. */
static int check_manifest_names_run(struct kix_log_txn *t, const struct kix_log_item *item,
                                    struct kix_err *err)
{
    const struct kix_entry *e = item->entry;
    struct kix__manifest_memo m;
    struct kix_bytes mb;
    json_t *doc, *named;
    int rc = KIX_OK;

    if (!kix__manifest_memo_of(item, &m))
        m.run_named = KIX__RUN_NAMED_UNKNOWN;
    if (m.run_named == KIX__RUN_NAMED_NONE ||
        (m.run_named == KIX__RUN_NAMED_STRING && strcmp(m.named_run, e->run_id) == 0))
        return KIX_OK;
    if (kix_log_item_object(t, item, &e->subject, &mb) != KIX_OK)
        return KIX_OK; /* a missing manifest is the log's to refuse, by name */
    kix__writer_parsed_manifest();
    doc = json_loadb((const char *)mb.ptr, mb.len, 0, NULL);
    named = json_object_get(json_object_get(doc, "metadata"), "runId");
    if (named && (!json_is_string(named) || strcmp(json_string_value(named), e->run_id) != 0))
        rc = kix_err_set(err, KIX_EPOLICY,
                         "the manifest's metadata.runId is %s, but the publication names run "
                         "%s; a manifest that names its run is published as that run",
                         json_is_string(named) ? json_string_value(named) : "not a string",
                         e->run_id);
    json_decref(doc);
    return rc;
}

/* Evidence is another key's word: a controlled rerun signed by the key
 * that published the run (every run of a supersession chain has that one
 * publisher) would raise the run's evidence on its publisher's own say.
 * A replica takes what its upstream logged before the rule. */
static int rerun_independent(const struct kix_entry *e, const struct kix_run_info *run,
                             struct kix_err *err)
{
    char id[65];

    if (memcmp(run->publisher, e->signer, 32) != 0)
        return KIX_OK;
    kix_hex_encode(e->signer, 32, id);
    return kix_err_set(err, KIX_EPOLICY,
                       "key %.16s published run %s, so its controlled rerun of that run would "
                       "raise the run's evidence on the publisher's own word; a controlled rerun "
                       "is signed by another key (kix key add --role rerun), or record this as an "
                       "attestation (kix attest), which never changes the evidence",
                       id, run->run_id);
}

static int check_rerun_independent(const struct kix_log_item *item, const struct kix_run_info *run,
                                   struct kix_err *err)
{
    return item->replayed ? KIX_OK : rerun_independent(item->entry, run, err);
}

/* A new run id follows the run-id grammar (PROTOCOL.md §5.3). */
static int new_run_id(const struct kix_entry *e, struct kix_err *err)
{
    if (e->type != KIX_ENTRY_PUBLICATION ||
        kix_run_id_check(e->run_id, e->run_id_len, err) == KIX_OK)
        return KIX_OK;
    if (err)
        err->code = KIX_EPOLICY; /* refuses this entry only */
    return KIX_EPOLICY;
}

/* A replica takes what its upstream logged before the grammar, as a
 * rebuild does: the entry is then a finding (note_findings). */
static int check_new_run_id(const struct kix_log_item *item, struct kix_err *err)
{
    return item->replayed ? KIX_OK : new_run_id(item->entry, err);
}

/* The origin rules a replica and a rebuild skip, applied to what they
 * take: each entry that breaks one is kept as a finding (kix/index.h),
 * which kix audit, mirrors and kixd check report. An origin's own appends
 * passed index_check, so they never land here. run: the run's record
 * before the entry. */
int kix__origin_finding(const struct kix_entry *e, const struct kix_run_info *run,
                        struct kix_err *why)
{
    if (e->type == KIX_ENTRY_PUBLICATION && new_run_id(e, why) != KIX_OK)
        return KIX_FINDING_RUN_ID;
    if (e->type == KIX_ENTRY_RERUN && run && rerun_independent(e, run, why) != KIX_OK)
        return KIX_FINDING_SELF_RERUN;
    return 0;
}

static int note_findings(struct kix_log_txn *t, const struct kix_log_item *item,
                         const struct kix_run_info *run, struct kix_err *err)
{
    struct kix_err why = {0};
    int rule = kix__origin_finding(item->entry, run, &why);

    return rule ? kix__finding_put(t, item->index, rule, why.msg, err) : KIX_OK;
}

static int index_check(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err)
{
    struct kix_run_info run, new_run;
    int rc = check_new_run_id(item, err);

    if (rc == KIX_OK)
        rc = check_entry(t, item->entry, &run, &new_run, 1, err);

    if (rc == KIX_OK && item->entry->type == KIX_ENTRY_RERUN)
        rc = check_rerun_independent(item, &run, err);
    if (rc == KIX_OK && item->entry->type == KIX_ENTRY_RERUN)
        rc = check_rerun_measures(t, item, &run, err);
    if (rc == KIX_OK && item->entry->type == KIX_ENTRY_PUBLICATION)
        rc = check_manifest_names_run(t, item, err);
    return rc;
}

/* A comparable run enters its comparison group. The manifest is usually in
 * the submission, its group found while the log prepared it
 * (manifest_memo.c); else it was stored before. */
static int join_group(struct kix_log_txn *t, const struct kix_log_item *item,
                      struct kix_run_info *run, struct kix_err *err)
{
    struct kix__manifest_memo m;
    struct kix_bytes stored;
    int rc;

    if (kix__manifest_memo_of(item, &m)) {
        if (!m.comparable)
            return KIX_OK;
        run->comparison_key = m.comparison_key;
        run->value = m.value;
        run->grouped = 1;
        return kix__group_insert(t, run, err);
    }
    rc = kix_log_txn_object(t, &item->entry->subject, &stored);
    if (rc)
        return kix_err_set(err, rc == KIX_ENOTFOUND ? KIX_ECORRUPT : rc,
                           "reading the run manifest");
    kix__writer_parsed_manifest();
    kix__run_group_by_manifest(run, stored.ptr, stored.len);
    return run->grouped ? kix__group_insert(t, run, err) : KIX_OK;
}

/* An entry about a run joins its committed list (kix/vindex.h). */
static void chain_entry(struct kix_run_info *run, uint64_t index, const struct kix_hash *leaf_hash)
{
    kix_vindex_chain(&run->entries_chain, index, leaf_hash, &run->entries_chain);
    run->entries++;
}

static int has_group(const struct kix_run_info *run)
{
    static const uint8_t zero[32];
    return memcmp(run->comparison_key.b, zero, 32) != 0;
}

void kix__run_step(const struct kix_entry *e, uint64_t index, const struct kix_hash *leaf_hash,
                   struct kix_run_info *run, struct kix_run_info *new_run)
{
    switch (e->type) {
    case KIX_ENTRY_PUBLICATION:
        memset(run, 0, sizeof(*run));
        memcpy(run->run_id, e->run_id, e->run_id_len + 1);
        run->manifest = e->subject;
        memcpy(run->publisher, e->signer, 32);
        run->publication_index = index;
        run->superseded_by_index = KIX_NO_INDEX;
        run->supersedes_index = KIX_NO_INDEX;
        run->withdrawn_index = KIX_NO_INDEX;
        run->evidence = KIX_EVIDENCE_REPORTED;
        run->evidence_index = KIX_NO_INDEX;
        chain_entry(run, index, leaf_hash);
        break;
    case KIX_ENTRY_ATTESTATION:
        run->attestations++;
        chain_entry(run, index, leaf_hash);
        break;
    case KIX_ENTRY_RERUN:
        run->reruns++;
        /* Evidence is another key's word. An origin refuses a rerun signed
         * by the run's publisher (check_rerun_independent), but a replica
         * and a rebuild take what an older origin logged: such a rerun is
         * listed and never raises (or lowers) the evidence, so every copy
         * derives the evidence by today's rule (issue 42). */
        if (memcmp(e->signer, run->publisher, 32) != 0) {
            run->evidence = e->outcome;
            run->evidence_index = index;
        }
        chain_entry(run, index, leaf_hash);
        break;
    case KIX_ENTRY_SUPERSESSION:
        run->superseded_by_index = index;
        run->grouped = 0;
        new_run->supersedes_index = index;
        chain_entry(run, index, leaf_hash);
        chain_entry(new_run, index, leaf_hash);
        break;
    case KIX_ENTRY_WITHDRAWAL:
        run->withdrawn_index = index;
        run->grouped = 0; /* the group's ranks close up */
        chain_entry(run, index, leaf_hash);
        break;
    case KIX_ENTRY_REINSTATEMENT:
        run->withdrawn_index = KIX_NO_INDEX;
        /* back in the group its manifest names (its key and value were
         * kept), unless it was superseded meanwhile */
        run->grouped = has_group(run) && run->superseded_by_index == KIX_NO_INDEX;
        chain_entry(run, index, leaf_hash);
        break;
    }
}

/* A group's withdrawn runs (KIX_TABLE_WITHDRAWN): the run in (present 1)
 * or out, and its withdrawn/<hex> key touched. */
static int withdrawn_put(struct kix_log_txn *t, const struct kix_log_item *item,
                         const struct kix_run_info *run, int present, struct kix_err *err)
{
    uint8_t k[32 + KIX_RUN_ID_MAX], v[9];
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n = strlen(run->run_id);
    int rc;

    memcpy(k, run->comparison_key.b, 32);
    memcpy(k + 32, run->run_id, n);
    kix_u64be_put(v, item->index);
    v[8] = (uint8_t)item->entry->withdraw_reason;
    rc = present ? kix_log_txn_put(t, KIX_TABLE_WITHDRAWN, k, 32 + n, v, 9, err)
                 : kix_log_txn_del(t, KIX_TABLE_WITHDRAWN, k, 32 + n, err);
    if (rc == KIX_ENOTFOUND)
        rc = KIX_OK;
    return rc ? rc
              : kix__vindex_touch(t, key, kix_vindex_key_withdrawn(&run->comparison_key, key), NULL,
                                  0, err);
}

struct withdrawn_list {
    const uint8_t *group;
    struct kix_buf items;
    uint64_t n;
    int rc;
};

static int withdrawn_item(void *arg, const struct kix_bytes *k, const struct kix_bytes *v)
{
    struct withdrawn_list *w = arg;
    char id[KIX_RUN_ID_MAX + 1];

    if (k->len < 32 || memcmp(k->ptr, w->group, 32) != 0)
        return 1; /* past the group */
    if (k->len == 32 || k->len - 32 > KIX_RUN_ID_MAX || v->len != 9)
        return 0;
    memcpy(id, k->ptr + 32, k->len - 32);
    id[k->len - 32] = '\0';
    w->rc = kix_vindex_withdrawn_add(id, kix_u64be_get(v->ptr), v->ptr[8], &w->items);
    w->n++;
    return w->rc ? 1 : 0;
}

int kix__withdrawn_record(struct kix_log_txn *t, const struct kix_digest *group,
                          struct kix_buf *out, struct kix_err *err)
{
    struct withdrawn_list w = {group->b, KIX_BUF_INIT, 0, KIX_OK};
    int rc = kix_log_txn_scan(t, KIX_TABLE_WITHDRAWN, group->b, 32, withdrawn_item, &w);

    if (rc == KIX_OK)
        rc = w.rc;
    if (rc == KIX_OK)
        rc = kix_vindex_withdrawn_begin(group, w.n, out);
    if (rc == KIX_OK)
        rc = kix_buf_add(out, w.items.ptr, w.items.len);
    kix_buf_release(&w.items);
    return rc ? kix_err_set(err, rc, "a group's withdrawn runs: %s", kix_strerror(rc)) : KIX_OK;
}

/* The verifiable index's keys this entry changes. */
static int touch_run(struct kix_log_txn *t, const char *id, struct kix_err *err)
{
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n = kix_vindex_key_run(id, strlen(id), key);
    return kix__vindex_touch(t, key, n, NULL, 0, err);
}

static int touch_group(struct kix_log_txn *t, const struct kix_digest *group, struct kix_err *err)
{
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n = kix_vindex_key_group(group, key);
    return kix__vindex_touch(t, key, n, NULL, 0, err);
}

static int touch_entry(struct kix_log_txn *t, const struct kix_log_item *item,
                       const struct kix_run_info *before, const struct kix_run_info *run,
                       struct kix_err *err)
{
    const struct kix_entry *e = item->entry;
    char key[KIX_VINDEX_KEY_MAX + 1];
    size_t n;
    int rc = KIX_OK;

    switch (e->type) {
    case KIX_ENTRY_KEY:
        n = kix_vindex_key_key(e->subject.b, key);
        return kix__vindex_touch(t, key, n, NULL, 0, err);
    case KIX_ENTRY_POLICY:
        return KIX_OK; /* about no run: the log layer keeps it */
    case KIX_ENTRY_PUBLICATION: {
        /* published once: its record is known now, no need to derive it */
        struct kix_buf v = KIX_BUF_INIT;
        n = kix_vindex_key_manifest(&e->subject, key);
        rc = kix_vindex_manifest_encode(&e->subject, e->run_id, item->index, &v);
        if (rc == KIX_OK)
            rc = kix__vindex_touch(t, key, n, v.ptr, v.len, err);
        else
            kix_err_set(err, rc, "out of memory");
        kix_buf_release(&v);
    }
        if (rc == KIX_OK && run->grouped)
            rc = touch_group(t, &run->comparison_key, err);
        break;
    case KIX_ENTRY_SUPERSESSION:
        if (before->grouped)
            rc = touch_group(t, &before->comparison_key, err);
        if (rc == KIX_OK)
            rc = touch_run(t, e->new_run_id, err);
        break;
    case KIX_ENTRY_WITHDRAWAL:
    case KIX_ENTRY_REINSTATEMENT:
        if (before->grouped != run->grouped)
            rc = touch_group(t, &run->comparison_key, err);
        break;
    }
    return rc ? rc : touch_run(t, e->run_id, err);
}

static int index_apply(struct kix_log_txn *t, const struct kix_log_item *item, struct kix_err *err)
{
    const struct kix_entry *e = item->entry;
    struct kix_run_info run, new_run, before;
    int rc = check_entry(t, e, &run, &new_run, 0, err); /* the records to update */

    if (rc || e->type == KIX_ENTRY_KEY || e->type == KIX_ENTRY_POLICY)
        return rc ? rc : touch_entry(t, item, NULL, NULL, err);
    before = run;
    rc = note_findings(t, item, &run, err);
    if (rc == KIX_OK && (e->type == KIX_ENTRY_SUPERSESSION || e->type == KIX_ENTRY_WITHDRAWAL) &&
        run.grouped)
        rc = kix__group_remove(t, &run, err); /* a superseded or withdrawn run leaves the ranking */
    kix__run_step(e, item->index, &item->leaf_hash, &run, &new_run);
    if (rc == KIX_OK && e->type == KIX_ENTRY_REINSTATEMENT && run.grouped)
        rc = kix__group_insert(t, &run, err); /* and a reinstated one comes back */
    /* a run whose manifest names a group is listed under it while withdrawn */
    if (rc == KIX_OK && has_group(&run) &&
        (e->type == KIX_ENTRY_WITHDRAWAL || e->type == KIX_ENTRY_REINSTATEMENT))
        rc = withdrawn_put(t, item, &run, e->type == KIX_ENTRY_WITHDRAWAL, err);
    switch (e->type) {
    case KIX_ENTRY_PUBLICATION:
        if (rc == KIX_OK)
            rc = join_group(t, item, &run, err);
        if (rc == KIX_OK)
            rc = kix__sel_apply(t, item, &run, err);
        break;
    case KIX_ENTRY_SUPERSESSION:
        if (rc == KIX_OK)
            rc = kix__run_put(t, &new_run, err);
        if (rc == KIX_OK)
            rc = kix__run_entry_put(t, e->new_run_id, e->new_run_id_len, item->index, e->type, err);
        break;
    }
    if (rc == KIX_OK)
        rc = kix__run_put(t, &run, err);
    if (rc == KIX_OK)
        rc = kix__run_entry_put(t, e->run_id, e->run_id_len, item->index, e->type, err);
    if (rc == KIX_OK)
        rc = touch_entry(t, item, &before, &run, err);
    return rc;
}

/* kix-index/9: a run record names its publisher key and its comparison
 * group by number (numbers.c, in the runs table) and keeps its entries
 * chain only when it has more than its publication, whose entry record
 * is no longer stored (runs.c): the runs table ~60% smaller.
 * kix-index/8: a packed tile's interior records of level 2 computed as
 * well (kix_smt_tile_pack; tiles packed by kix-index/7 still read), the
 * smt table ~40% smaller; the index is written again in key order when
 * an open at least doubled it (store/log/compact.c).
 * kix-index/7: the tree's tiles packed (kix_smt_tile_pack: a tile's
 * interior records of levels 0 and 1 are computed from its other records, not
 * stored), run records in a variable layout (runs.c), selection items
 * keyed by their list's number, not its ~80-byte key (selections.c); the
 * tree's records and the index notes are kix-index/6's.
 * kix-index/6: a run's entry records beside its record in the runs table
 * (run id ‖ 0 ‖ index), so an entry dirties one page of it, not two; the
 * tree's tiles stored under prefix ‖ stratum (kix_index_smt_store_key), so
 * a route's tiles share pages; a selection list's head after its items
 * (selections.c); the index notes are the same bytes as kix-index/5's.
 * kix-index/5: run records keep the withdrawal in force, and withdrawn runs
 * leave their group's ranks (the withdrawn table lists them by group);
 * evidence by today's rule (a rerun signed by the run's publisher is never
 * evidence, kix__run_step) and the findings table; group pages cut by size
 * as well as by the hash rule. A store of kix-index/4 is rebuilt on its
 * first writable open, which re-derives every run's evidence.
 * kix-index/4: groups paged (a directory and pages, kix/vindex.h; the
 * group table marks the runs that start a page) and selection records
 * (selections.c) beside runs, groups, keys and manifests. kix-index/3: run
 * records commit their entry list; the verifiable index, its tree kept in
 * tiles of four levels (kix-index/2 kept one record per node: a store of
 * an older name is rebuilt on its first writable open) */
static const struct kix_log_table_spec tables[KIX_INDEX_TABLES] = {
    [KIX_TABLE_RUNS] = {"runs", 0},
    [KIX_TABLE_RUN_ENTRIES] = {"run_entries", 0},
    [KIX_TABLE_GROUPS] = {"groups", 0},
    /* what the index notes commit to, kept since kix-index/2 */
    [KIX_TABLE_SMT] = {"smt", KIX_LOG_TABLE_SEALED},
    /* since kix-index/4: absent from older stores, like the tree it serves */
    [KIX_TABLE_GROUP_STARTS] = {"group_starts", KIX_LOG_TABLE_SEALED},
    [KIX_TABLE_SELECTIONS] = {"selections", KIX_LOG_TABLE_SEALED},
    /* since kix-index/5 */
    [KIX_TABLE_WITHDRAWN] = {"withdrawn", KIX_LOG_TABLE_SEALED},
    [KIX_TABLE_FINDINGS] = {"findings", KIX_LOG_TABLE_SEALED},
};

static const struct kix_log_indexer indexer = {
    .name = "kix-index/9",
    .tables = tables,
    .ntables = KIX_INDEX_TABLES,
    .prepare = kix__manifest_memo_prepare,
    .check = index_check,
    .apply = index_apply,
    .seal = kix__vindex_seal,
    .reset = kix__vindex_reset,
};

const struct kix_log_indexer *kix_index_indexer(void)
{
    return &indexer;
}

int kix_index_current(struct kix_log *log, char *format, size_t cap)
{
    if (kix_log_index_format(log, format, cap) != KIX_OK)
        return 1;
    return !format[0] || strcmp(format, indexer.name) == 0;
}

static struct kix_log_opts with_index(const struct kix_log_opts *opts)
{
    struct kix_log_opts o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof(o));
    o.indexer = &indexer;
    return o;
}

int kix_index_create(const char *dir, const char *origin, const uint8_t admin_pub[32],
                     const struct kix_log_opts *opts, struct kix_buf *log_vkey, struct kix_err *err)
{
    struct kix_log_opts o = with_index(opts);
    return kix_log_create(dir, origin, admin_pub, &o, log_vkey, err);
}

int kix_index_create_replica(const char *dir, const struct kix_verifier *log_key,
                             const struct kix_log_opts *opts, struct kix_err *err)
{
    struct kix_log_opts o = with_index(opts);
    return kix_log_create_replica(dir, log_key, &o, err);
}

int kix_index_open(const char *dir, const struct kix_log_opts *opts, struct kix_log **out,
                   struct kix_err *err)
{
    struct kix_log_opts o = with_index(opts);
    return kix_log_open(dir, &o, out, err);
}

int kix_index_open_any(const char *dir, const struct kix_log_opts *opts, struct kix_log **out,
                       struct kix_err *err)
{
    struct kix_log_opts o = with_index(opts);
    struct kix_err first = {0};
    int rc = kix_log_open(dir, &o, out, &first);

    /* a key file named on purpose is never quietly done without */
    if (rc && first.cause == KIX_CAUSE_NO_LOG_KEY && !(opts && opts->log_key_file)) {
        o.replica = 1; /* no log key here: a replica (mirror) store */
        return kix_log_open(dir, &o, out, err);
    }
    if (rc && err)
        *err = first;
    return rc;
}
