/* The kix entry vocabulary: predicates, roles, evidence, run ids, and what
 * an entry's statement says (kix/entry.h). Pure: no database. */
#define _GNU_SOURCE /* memmem */
#include "kix/entry.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kix/encoding.h"
#include "kix/json.h"
#include "kix/sha256.h"
#include "memo_internal.h"

static const char *const entry_names[] = {"unknown",     "key",           "publication",
                                          "attestation", "rerun",         "supersession",
                                          "withdrawal",  "reinstatement", "policy"};
static const char *const evidence_names[] = {"reported", "reproduced", "not_reproduced", "failed"};
static const char *const role_names[] = {"admin", "publish", "attest", "rerun", "curate"};
#define NROLES 5
static const char *const reason_names[] = {"", "invalid-timing", "incorrect-result", "duplicate",
                                           "other"};

const char *kix_entry_type_name(int type)
{
    return type >= 1 && type <= KIX_ENTRY_TYPE_MAX ? entry_names[type] : entry_names[0];
}

const char *kix_withdraw_reason_name(int reason)
{
    return reason >= 1 && reason <= KIX_WITHDRAW_OTHER ? reason_names[reason] : "";
}

int kix_withdraw_reason_parse(const char *text, size_t len)
{
    for (int i = 1; i <= KIX_WITHDRAW_OTHER; i++)
        if (strlen(reason_names[i]) == len && memcmp(reason_names[i], text, len) == 0)
            return i;
    return 0;
}

unsigned kix_work_bits(const uint8_t hash[32])
{
    unsigned bits = 0;

    for (size_t i = 0; i < 32 && hash[i] == 0; i++)
        bits += 8;
    if (bits < 256)
        for (uint8_t b = hash[bits / 8]; !(b & 0x80); b = (uint8_t)(b << 1))
            bits++;
    return bits;
}

const char *kix_evidence_name(int evidence)
{
    return evidence >= 0 && evidence <= 3 ? evidence_names[evidence] : "unknown";
}

int kix_evidence_parse(const char *text, size_t len)
{
    for (int i = 0; i < 4; i++)
        if (strlen(evidence_names[i]) == len && memcmp(evidence_names[i], text, len) == 0)
            return i;
    return -1;
}

int kix_roles_parse(const char *text, size_t len)
{
    int roles = 0;
    size_t start = 0;

    while (start <= len) {
        size_t end = start;
        int found = 0;
        while (end < len && text[end] != ',')
            end++;
        for (int i = 0; i < NROLES; i++)
            if (strlen(role_names[i]) == end - start &&
                memcmp(role_names[i], text + start, end - start) == 0) {
                roles |= 1 << i;
                found = 1;
            }
        if (!found)
            return -1;
        start = end + 1;
    }
    return roles;
}

int kix_roles_format(unsigned roles, struct kix_buf *out)
{
    int rc = KIX_OK, first = 1;
    for (int i = 0; i < NROLES && rc == KIX_OK; i++)
        if (roles & (1u << i)) {
            if (!first)
                rc = kix_buf_addc(out, ',');
            if (rc == KIX_OK)
                rc = kix_buf_adds(out, role_names[i]);
            first = 0;
        }
    return rc;
}

int kix_run_id_valid(const char *s, size_t len)
{
    if (len == 0 || len > KIX_RUN_ID_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-'))
            return 0;
    }
    return 1;
}

static int id_letter_or_digit(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int kix_run_id_check(const char *s, size_t len, struct kix_err *err)
{
    const char *broken = NULL;
    int printable = 1;

    for (size_t i = 0; i < len && i < KIX_RUN_ID_MAX; i++)
        printable &= s[i] > ' ' && s[i] < 0x7f;
    if (len == 0)
        broken = "it is empty";
    else if (len > KIX_RUN_ID_MAX)
        broken = "it is too long";
    else if (!id_letter_or_digit(s[0]))
        broken = s[0] == '.' ? "it begins with a dot (., .. and .size name directories and the "
                               "static export's own files)"
                             : "it does not begin with a letter or digit";
    for (size_t i = 1; !broken && i < len; i++) {
        if (s[i] == ':')
            broken = "it holds a ':' (a run id never parses as a digest such as sha256:...)";
        else if (!id_letter_or_digit(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
            broken = "it holds a character outside A-Z a-z 0-9 . _ -";
    }
    /* run <id>'s page and view are runs/<id>.html and runs/<id>.json: an id
     * with such a suffix would name another run's file (any case: some
     * file systems and servers fold it) */
    if (!broken && len > 5 &&
        (strncasecmp(s + len - 5, ".html", 5) == 0 || strncasecmp(s + len - 5, ".json", 5) == 0))
        broken = "it ends in .html or .json (the names of another run's page and view)";
    if (!broken)
        return KIX_OK;
    if (printable && len <= KIX_RUN_ID_MAX)
        return kix_err_set(err, KIX_EINVAL, "run id \"%.*s\" is refused: %s; %s (PROTOCOL.md §5.3)",
                           (int)len, s, broken, KIX_RUN_ID_GRAMMAR);
    return kix_err_set(err, KIX_EINVAL, "run id refused: %s; %s (PROTOCOL.md §5.3)", broken,
                       KIX_RUN_ID_GRAMMAR);
}

int kix_run_page_name(const char *id, size_t len, char *out, size_t cap, int *escaped)
{
    size_t n = 0;

    *escaped = 0;
    if (!kix_run_id_valid(id, len))
        return KIX_EINVAL;
    if (kix_run_id_check(id, len, NULL) == KIX_OK) {
        if (len + 1 > cap)
            return KIX_ELIMIT;
        memcpy(out, id, len);
        out[len] = '\0';
        return KIX_OK;
    }
    /* escaped: '_' first (no id of the grammar begins so) and no '.', so
     * neither another id nor a suffix of the layout gives the same name */
    *escaped = 1;
    for (size_t i = 0; i < len; i++) {
        char c = id[i];
        const char *w = c == '_' ? "_u" : c == '.' ? "_d" : c == ':' ? "_c" : NULL;
        size_t k = w ? 2 : 1;
        if (n + (n == 0) + k + 1 > cap || n + (n == 0) + k > KIX_RUN_PAGE_NAME_MAX)
            return KIX_ELIMIT;
        if (n == 0)
            out[n++] = '_';
        memcpy(out + n, w ? w : &c, k);
        n += k;
    }
    out[n] = '\0';
    return KIX_OK;
}

int kix_run_page_id(const char *name, size_t len, char id[KIX_RUN_ID_MAX + 1])
{
    size_t n = 0;
    char back[KIX_RUN_PAGE_NAME_MAX + 1];
    int escaped;

    if (len < 2 || name[0] != '_')
        return KIX_EINVAL;
    for (size_t i = 1; i < len; i++) {
        char c = name[i];
        if (c == '_') {
            c = ++i >= len       ? 0
                : name[i] == 'u' ? '_'
                : name[i] == 'd' ? '.'
                : name[i] == 'c' ? ':'
                                 : 0;
            if (!c)
                return KIX_EINVAL;
        }
        if (n >= KIX_RUN_ID_MAX)
            return KIX_EINVAL;
        id[n++] = c;
    }
    id[n] = '\0';
    /* one spelling per id: the name must be the one kix_run_page_name
     * writes (an id of the grammar is never escaped) */
    if (kix_run_page_name(id, n, back, sizeof(back), &escaped) != KIX_OK || !escaped ||
        strlen(back) != len || memcmp(back, name, len) != 0)
        return KIX_EINVAL;
    return KIX_OK;
}

static int add_need(struct kix_entry *p, const struct kix_digest *d)
{
    struct kix_digest *n;
    for (size_t i = 0; i < p->nneeds; i++)
        if (memcmp(p->needs[i].b, d->b, 32) == 0)
            return KIX_OK;
    n = realloc(p->needs, (p->nneeds + 1) * sizeof(*n));
    if (!n)
        return KIX_ENOMEM;
    p->needs = n;
    p->needs[p->nneeds++] = *d;
    return KIX_OK;
}

/* A required string member; its length into *len. */
static const char *get_string(const json_t *obj, const char *name, size_t *len, int required,
                              struct kix_err *err)
{
    json_t *v = json_object_get(obj, name);
    if (!v) {
        if (required)
            kix_err_set(err, KIX_EINVAL, "predicate lacks \"%s\"", name);
        return NULL;
    }
    if (!json_is_string(v)) {
        kix_err_set(err, KIX_EINVAL, "predicate field \"%s\" must be a string", name);
        return NULL;
    }
    *len = json_string_length(v);
    return json_string_value(v);
}

static int get_run_id(const json_t *pred, const char *name, char *out, size_t *out_len,
                      struct kix_err *err)
{
    size_t len = 0;
    const char *s = get_string(pred, name, &len, 1, err);
    if (!s)
        return KIX_EINVAL;
    if (!kix_run_id_valid(s, len))
        return kix_err_set(err, KIX_EINVAL,
                           "predicate field \"%s\" is not a valid run id (1 to %u characters of "
                           "A-Z a-z 0-9 . _ : -)",
                           name, KIX_RUN_ID_MAX);
    memcpy(out, s, len);
    out[len] = '\0';
    *out_len = len;
    return KIX_OK;
}

static int get_digest(const json_t *pred, const char *name, struct kix_digest *d,
                      struct kix_err *err)
{
    size_t len = 0;
    int rc;
    const char *s = get_string(pred, name, &len, 1, err);
    if (!s)
        return KIX_EINVAL;
    rc = kix_digest_parse(s, len, d, err);
    if (rc)
        kix_err_wrap(err, "predicate field \"%s\"", name);
    return rc;
}

static int parse_key(struct kix_entry *p, const json_t *pred, struct kix_err *err)
{
    size_t len = 0, n;
    const char *action = get_string(pred, "action", &len, 1, err);
    const char *pub_b64;
    const json_t *roles;
    uint8_t id[32];

    if (!action)
        return KIX_EINVAL;
    if (len == 3 && memcmp(action, "add", 3) == 0)
        p->key_revoke = 0;
    else if (len == 6 && memcmp(action, "revoke", 6) == 0)
        p->key_revoke = 1;
    else
        return kix_err_set(err, KIX_EINVAL, "key action must be \"add\" or \"revoke\"");
    pub_b64 = get_string(pred, "publicKey", &len, 1, err);
    if (!pub_b64)
        return KIX_EINVAL;
    if (kix_base64_decode_std(pub_b64, len, p->key_pub, sizeof(p->key_pub), &n) != 0 || n != 32)
        return kix_err_set(err, KIX_EINVAL,
                           "predicate field \"publicKey\" must be the standard base64 of a 32-byte "
                           "Ed25519 public key");
    kix_sha256(p->key_pub, 32, id);
    if (memcmp(id, p->subject.b, 32) != 0)
        return kix_err_set(err, KIX_EINVAL,
                           "the key entry's subject digest is not SHA-256 of its publicKey");
    p->key_roles = 0;
    roles = json_object_get(pred, "roles");
    if (!p->key_revoke) {
        size_t i;
        json_t *r;
        if (!json_is_array(roles) || json_array_size(roles) == 0)
            return kix_err_set(err, KIX_EINVAL, "a key add needs a non-empty \"roles\" array");
        json_array_foreach(roles, i, r)
        {
            int bit = json_is_string(r)
                          ? kix_roles_parse(json_string_value(r), json_string_length(r))
                          : -1;
            if (bit <= 0)
                return kix_err_set(err, KIX_EINVAL,
                                   "unknown role in \"roles\" (known: admin, publish, attest, "
                                   "rerun, curate)");
            p->key_roles |= (unsigned)bit;
        }
    }
    return KIX_OK;
}

static int parse_attestation(struct kix_entry *p, const json_t *pred, struct kix_err *err)
{
    size_t len = 0, i;
    const json_t *evidence = json_object_get(pred, "evidence");
    json_t *e;

    if (!get_string(pred, "note", &len, 1, err))
        return KIX_EINVAL;
    if (len > 16384)
        return kix_err_set(err, KIX_ELIMIT, "attestation note is over 16384 bytes");
    if (json_object_get(pred, "signerKey")) {
        /* an open note: its signer's key travels inside what is signed, so
         * every replay verifies it without the registry (PROTOCOL.md §5.4) */
        const char *b64 = get_string(pred, "signerKey", &len, 1, err);
        size_t n = 0;
        if (!b64)
            return KIX_EINVAL;
        if (kix_base64_decode_std(b64, len, p->note_pub, sizeof(p->note_pub), &n) != 0 || n != 32)
            return kix_err_set(err, KIX_EINVAL,
                               "predicate field \"signerKey\" must be the standard base64 of a "
                               "32-byte Ed25519 public key");
        p->open_note = 1;
        /* and names the log it is for: no other log takes it, however alike */
        b64 = get_string(pred, "log", &len, 1, err);
        if (!b64)
            return kix_err_set(err, KIX_EINVAL,
                               "an open note names the log it is for: predicate field \"log\", "
                               "the log's origin");
        if (len == 0 || len > KIX_OPEN_NOTE_LOG_MAX)
            return kix_err_set(err, KIX_EINVAL, "predicate field \"log\" is 1 to %u bytes",
                               KIX_OPEN_NOTE_LOG_MAX);
        memcpy(p->note_log, b64, len);
        p->note_log[len] = '\0';
    }
    if (p->open_note && !get_string(pred, "note", &len, 1, err))
        return KIX_EINVAL;
    if (p->open_note && len > KIX_OPEN_NOTE_TEXT_MAX)
        return kix_err_set(err, KIX_ELIMIT, "an open note's text is over %u bytes",
                           KIX_OPEN_NOTE_TEXT_MAX);
    if (p->open_note && json_is_array(evidence) &&
        json_array_size(evidence) > KIX_OPEN_NOTE_EVIDENCE)
        return kix_err_set(err, KIX_ELIMIT, "an open note names at most %u evidence objects",
                           KIX_OPEN_NOTE_EVIDENCE);
    if (json_object_get(pred, "work")) {
        if (!get_string(pred, "work", &len, 1, err))
            return KIX_EINVAL;
        if (len > KIX_NOTE_WORK_LEN)
            return kix_err_set(err, KIX_ELIMIT, "predicate field \"work\" is over %u bytes",
                               KIX_NOTE_WORK_LEN);
    }
    if (!evidence)
        return KIX_OK;
    if (!json_is_array(evidence) || json_array_size(evidence) > 32)
        return kix_err_set(err, KIX_EINVAL, "\"evidence\" must be an array of at most 32 digests");
    json_array_foreach(evidence, i, e)
    {
        struct kix_digest d;
        if (!json_is_string(e) ||
            kix_digest_parse(json_string_value(e), json_string_length(e), &d, err))
            return kix_err_set(err, KIX_EINVAL, "\"evidence\" item %zu is not a sha256: digest", i);
        if (add_need(p, &d))
            return KIX_ENOMEM;
    }
    return KIX_OK;
}

/* A withdrawal's reason, note and evidence, a reinstatement's note. */
static int parse_withdrawal(struct kix_entry *p, const json_t *pred, struct kix_err *err)
{
    size_t len = 0;
    const char *reason;
    const json_t *evidence = json_object_get(pred, "evidence");
    struct kix_digest d;

    if (json_object_get(pred, "note") && !get_string(pred, "note", &len, 0, err))
        return KIX_EINVAL;
    /* the schema counts characters; this bounds the bytes they can take */
    if (len > 4 * KIX_WITHDRAW_NOTE_MAX)
        return kix_err_set(err, KIX_ELIMIT, "%s note is over %u characters",
                           kix_entry_type_name(p->type), KIX_WITHDRAW_NOTE_MAX);
    if (p->type == KIX_ENTRY_REINSTATEMENT)
        return KIX_OK;
    reason = get_string(pred, "reason", &len, 1, err);
    if (!reason)
        return KIX_EINVAL;
    p->withdraw_reason = kix_withdraw_reason_parse(reason, len);
    if (!p->withdraw_reason)
        return kix_err_set(err, KIX_EINVAL,
                           "withdrawal \"reason\" must be one of " KIX_WITHDRAW_REASONS);
    if (!evidence)
        return KIX_OK;
    if (get_digest(pred, "evidence", &d, err))
        return KIX_EINVAL;
    return add_need(p, &d);
}

/* The log's admission policy (subject "policy" / the log key's id, which
 * admission checks): openNotes, noteWork?, setAt. */
static int parse_policy(struct kix_entry *p, const struct kix_statement_subject *sub,
                        const json_t *pred, struct kix_err *err)
{
    const json_t *open = json_object_get(pred, "openNotes"),
                 *work = json_object_get(pred, "noteWork");
    size_t len = 0;

    if (sub->name_len != 6 || memcmp(sub->name, "policy", 6) != 0)
        return kix_err_set(err, KIX_EINVAL, "a policy's subject name must be \"policy\"");
    if (!json_is_boolean(open))
        return kix_err_set(err, KIX_EINVAL, "a policy needs \"openNotes\": true or false");
    p->policy_open_notes = json_is_true(open);
    if (work && (!json_is_integer(work) || json_integer_value(work) < 0 ||
                 json_integer_value(work) > KIX_NOTE_WORK_MAX))
        return kix_err_set(err, KIX_EINVAL,
                           "a policy's \"noteWork\" is a whole number of bits from 0 to %u",
                           KIX_NOTE_WORK_MAX);
    p->policy_note_work = work ? (unsigned)json_integer_value(work) : 0;
    if (!get_string(pred, "setAt", &len, 1, err))
        return KIX_EINVAL;
    return KIX_OK;
}

static int predicate_type(const char *t)
{
    static const struct {
        const char *uri;
        int type;
    } table[] = {
        {KIX_PREDICATE_KEY, KIX_ENTRY_KEY},
        {KIX_PREDICATE_PUBLICATION, KIX_ENTRY_PUBLICATION},
        {KIX_PREDICATE_ATTESTATION, KIX_ENTRY_ATTESTATION},
        {KIX_PREDICATE_RERUN, KIX_ENTRY_RERUN},
        {KIX_PREDICATE_SUPERSESSION, KIX_ENTRY_SUPERSESSION},
        {KIX_PREDICATE_WITHDRAWAL, KIX_ENTRY_WITHDRAWAL},
        {KIX_PREDICATE_REINSTATE, KIX_ENTRY_REINSTATEMENT},
        {KIX_PREDICATE_POLICY, KIX_ENTRY_POLICY},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcmp(t, table[i].uri) == 0)
            return table[i].type;
    return 0;
}

/* kix_entry_parse_statement that can also hand out the predicate's tree (*pred_out,
 * a new reference, on success) for the caller to read more of it. */
int kix_entry_parse_statement_tree(struct kix_entry *p, const uint8_t *payload, size_t len,
                                   json_t **pred_out, struct kix_err *err)
{
    struct kix_statement st;
    json_t *pred = NULL;
    size_t olen = 0;
    const char *outcome;
    int rc;

    kix_statement_init(&st);
    rc = kix_statement_parse_tree(payload, len, &st, &pred, err);
    if (rc)
        goto out;
    p->type = predicate_type(st.predicate_type);
    if (!p->type) {
        rc = kix_err_set(err, KIX_EINVAL,
                         "unknown predicateType %s (kix logs " KIX_PREDICATE_PREFIX
                         "{key,publication,attestation,rerun,supersession,withdrawal,"
                         "reinstatement,policy}/v1)",
                         st.predicate_type);
        goto out;
    }
    if (st.n_subjects != 1) {
        rc = kix_err_set(err, KIX_EINVAL, "a kix statement has exactly one subject, not %zu",
                         st.n_subjects);
        goto out;
    }
    memcpy(p->subject.b, st.subjects[0].sha256, 32);
    switch (p->type) {
    case KIX_ENTRY_KEY:
        rc = parse_key(p, pred, err);
        break;
    case KIX_ENTRY_PUBLICATION:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK && (st.subjects[0].name_len != p->run_id_len ||
                             memcmp(st.subjects[0].name, p->run_id, p->run_id_len) != 0))
            rc = kix_err_set(err, KIX_EINVAL, "a publication's subject name must be its runId");
        if (rc == KIX_OK)
            rc = add_need(p, &p->subject);
        break;
    case KIX_ENTRY_ATTESTATION:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK)
            rc = parse_attestation(p, pred, err);
        break;
    case KIX_ENTRY_RERUN:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc)
            break;
        outcome = get_string(pred, "outcome", &olen, 1, err);
        p->outcome = outcome ? kix_evidence_parse(outcome, olen) : -1;
        if (p->outcome <= KIX_EVIDENCE_REPORTED) {
            rc = kix_err_set(err, KIX_EINVAL,
                             "rerun \"outcome\" must be reproduced, not_reproduced or failed");
            break;
        }
        rc = get_digest(pred, "rerunDigest", &p->rerun_digest, err);
        if (rc == KIX_OK)
            rc = add_need(p, &p->rerun_digest);
        break;
    case KIX_ENTRY_SUPERSESSION:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK)
            rc = get_run_id(pred, "newRunId", p->new_run_id, &p->new_run_id_len, err);
        if (rc == KIX_OK && p->run_id_len == p->new_run_id_len &&
            memcmp(p->run_id, p->new_run_id, p->run_id_len) == 0)
            rc = kix_err_set(err, KIX_EINVAL, "a run cannot supersede itself");
        break;
    case KIX_ENTRY_WITHDRAWAL:
    case KIX_ENTRY_REINSTATEMENT:
        rc = get_run_id(pred, "runId", p->run_id, &p->run_id_len, err);
        if (rc == KIX_OK)
            rc = parse_withdrawal(p, pred, err);
        break;
    case KIX_ENTRY_POLICY:
        rc = parse_policy(p, &st.subjects[0], pred, err);
        break;
    }
out:
    if (rc == KIX_OK && pred_out) {
        *pred_out = pred;
        pred = NULL;
    }
    json_decref(pred);
    kix_statement_release(&st);
    return rc;
}

int kix_entry_parse_statement(struct kix_entry *p, const uint8_t *payload, size_t len,
                              struct kix_err *err)
{
    return kix_entry_parse_statement_tree(p, payload, len, NULL, err);
}

int kix_entry_parse_leaf(const uint8_t *leaf, size_t len, struct kix_entry *e, struct kix_err *err)
{
    struct kix_dsse_envelope env;
    int rc;

    memset(e, 0, sizeof(*e));
    kix_dsse_envelope_init(&env);
    rc = kix_dsse_parse(leaf, len, &env, err);
    if (rc == KIX_OK)
        rc = kix_entry_parse_statement(e, env.payload.ptr, env.payload.len, err);
    if (rc == KIX_OK)
        rc = kix_entry_signer(e, &env, err);
    kix_dsse_envelope_release(&env);
    if (rc)
        kix_entry_release(e);
    return rc;
}

void kix_entry_release(struct kix_entry *p)
{
    free(p->needs);
    p->needs = NULL;
    p->nneeds = 0;
}

/* The one signature kix accepts: keyid = the 64 hex digits of the signer's
 * key id (kix_entry_canonical_keyid writes them lowercase in the leaf). */
int kix_entry_signer(struct kix_entry *p, const struct kix_dsse_envelope *env, struct kix_err *err)
{
    const struct kix_dsse_sig *sig;

    if (env->n_sigs != 1)
        return kix_err_set(err, KIX_EINVAL,
                           "a kix envelope carries exactly one signature, this one has %zu",
                           env->n_sigs);
    sig = &env->sigs[0];
    if (sig->keyid_len != 64 || kix_hex_decode(sig->keyid, 64, p->signer, 32) != KIX_OK)
        return kix_err_set(err, KIX_EINVAL,
                           "the signature's keyid must be the signer's key id: 64 hex digits of "
                           "SHA-256 of its public key");
    if (p->open_note) {
        uint8_t id[32];
        kix_sha256(p->note_pub, 32, id);
        if (memcmp(id, p->signer, 32) != 0)
            return kix_err_set(err, KIX_EINVAL,
                               "the open note's \"signerKey\" is not the key that signed it (its "
                               "SHA-256 must be the signature's keyid)");
    }
    return KIX_OK;
}

size_t kix_entry_canonical_keyid(struct kix_dsse_envelope *env)
{
    size_t changed = 0;

    for (size_t s = 0; s < env->n_sigs; s++)
        for (size_t i = 0; i < env->sigs[s].keyid_len; i++)
            if (env->sigs[s].keyid[i] >= 'A' && env->sigs[s].keyid[i] <= 'F') {
                env->sigs[s].keyid[i] = (char)(env->sigs[s].keyid[i] - 'A' + 'a');
                changed++;
            }
    return changed;
}

int kix_entry_needs(const uint8_t *leaf, size_t len, struct kix_digest **out, size_t *n,
                    struct kix_err *err)
{
    struct kix_entry p;
    struct kix_dsse_envelope env;
    int rc;

    *out = NULL;
    *n = 0;
    memset(&p, 0, sizeof(p));
    kix_dsse_envelope_init(&env);
    rc = kix_dsse_parse(leaf, len, &env, err);
    if (rc == KIX_OK)
        rc = kix_entry_parse_statement(&p, env.payload.ptr, env.payload.len, err);
    kix_dsse_envelope_release(&env);
    if (rc) {
        free(p.needs);
        return rc;
    }
    *out = p.needs;
    *n = p.nneeds;
    return KIX_OK;
}

/* A string member of the predicate, copied (truncated) into out. */
static void predicate_string(const json_t *pred, const char *const *names, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; pred && names[i]; i++) {
        json_t *v = json_object_get(pred, names[i]);
        if (json_is_string(v)) {
            snprintf(out, cap, "%s", json_string_value(v));
            break;
        }
    }
}

int kix_entry_may_be_open_note(const uint8_t *leaf, size_t len)
{
    struct kix_dsse_envelope env;
    int maybe = 1;

    kix_dsse_envelope_init(&env);
    /* an open note's predicate has the member "signerKey" (parse_attestation),
     * in the text as those 11 bytes unless its name is spelled with a \u
     * escape (no other escape spells a letter) */
    if (kix_dsse_parse(leaf, len, &env, NULL) == KIX_OK)
        maybe = memmem(env.payload.ptr, env.payload.len, "\"signerKey\"", 11) != NULL ||
                memmem(env.payload.ptr, env.payload.len, "\\u", 2) != NULL;
    kix_dsse_envelope_release(&env);
    return maybe;
}

int kix_entry_describe(const uint8_t *leaf, size_t len, struct kix_entry_summary *out,
                       struct kix_err *err)
{
    static const char *const times[] = {"publishedAt", "attestedAt",   "observedAt", "supersededAt",
                                        "withdrawnAt", "reinstatedAt", "setAt",      NULL};
    /* a withdrawal's reason is a word of its own (withdraw_reason) */
    static const char *const notes[] = {"note", "reason", NULL}, *const only_note[] = {"note",
                                                                                       NULL};
    static const char *const sources[] = {"source", NULL};
    static const char *const licenses[] = {"license", NULL};
    const struct kix_entry_summary *kept = kix__memo_find(KIX__MEMO_SUMMARY, leaf, len);
    struct kix_entry_summary *keep;
    struct kix_entry p;
    struct kix_dsse_envelope env;
    json_t *pred = NULL;
    int rc;

    /* an export describes a run's entries for its page, its citation and
     * the pages to write: the same leaf, summed up once (kix/json.h's memo) */
    if (kept) {
        memcpy(out, kept, sizeof(*out));
        return KIX_OK;
    }
    memset(out, 0, sizeof(*out));
    memset(&p, 0, sizeof(p));
    kix_dsse_envelope_init(&env);
    rc = kix_dsse_parse(leaf, len, &env, err);
    if (rc == KIX_OK)
        rc = kix_entry_parse_statement_tree(&p, env.payload.ptr, env.payload.len, &pred, err);
    if (rc == KIX_OK)
        rc = kix_entry_signer(&p, &env, err);
    if (rc == KIX_OK) {
        out->type = p.type;
        memcpy(out->run_id, p.run_id, sizeof(out->run_id));
        memcpy(out->new_run_id, p.new_run_id, sizeof(out->new_run_id));
        out->subject = p.subject;
        memcpy(out->signer, p.signer, 32);
        out->outcome = p.outcome;
        out->rerun_digest = p.rerun_digest;
        out->key_revoke = p.key_revoke;
        out->key_roles = p.key_roles;
        out->withdraw_reason = p.withdraw_reason;
        out->open_note = p.open_note;
        out->policy_open_notes = p.policy_open_notes;
        out->policy_note_work = p.policy_note_work;
        predicate_string(pred, times, out->time, sizeof(out->time));
        predicate_string(pred, p.type == KIX_ENTRY_WITHDRAWAL ? only_note : notes, out->note,
                         sizeof(out->note));
        predicate_string(pred, sources, out->source, sizeof(out->source));
        predicate_string(pred, licenses, out->license, sizeof(out->license));
        if ((keep = malloc(sizeof(*keep))) != NULL) {
            memcpy(keep, out, sizeof(*keep));
            if (!kix__memo_keep(KIX__MEMO_SUMMARY, leaf, len, keep))
                free(keep);
        }
    }
    json_decref(pred);
    kix_dsse_envelope_release(&env);
    free(p.needs);
    return rc;
}
