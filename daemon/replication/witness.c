/* Witness cosignatures at the server: the keys it accepts (--witness) and
 * the add_cosignature method, verified and stored on the thread pool
 * (witness.h). */
#include "witness.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "kix/messages.h"
#include "kix/vindex.h"

int kixd_read_verifier(const char *given, struct kix_verifier *out, struct kix_err *err)
{
    if (access(given, F_OK) == 0)
        return kix_pubfile_read(given, out, err);
    return kix_verifier_parse(given, strlen(given), out, err);
}

int kixd_witnesses_load(struct kixd_server *srv, struct kix_err *err)
{
    const struct kixd_config *cfg = srv->cfg;

    if (cfg->nwitnesses == 0)
        return KIX_OK;
    srv->witnesses = calloc(cfg->nwitnesses, sizeof(*srv->witnesses));
    if (!srv->witnesses)
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    for (size_t i = 0; i < cfg->nwitnesses; i++) {
        struct kix_verifier *v = &srv->witnesses[i];
        int rc = kixd_read_verifier(cfg->witnesses[i], v, err);
        if (rc) {
            kix_err_wrap(err, "--witness %s", cfg->witnesses[i]);
            return rc;
        }
        if (v->alg != KIX_NOTE_ALG_COSIGN)
            return kix_err_set(err, KIX_EUSAGE,
                               "--witness %s: key %s is not a witness cosignature key (make one "
                               "with kix keygen --witness)",
                               cfg->witnesses[i], v->name);
    }
    srv->nwitnesses = cfg->nwitnesses;
    kixd_log(KIXD_INFO, "accepting cosignatures from %zu witness keys", srv->nwitnesses);
    return KIX_OK;
}

struct cosign_job {
    uv_work_t req;
    struct kixd_conn *c;
    struct kixd_server *srv;
    uint32_t msgid;
    char *checkpoint, *line;
    size_t len, line_len;
    int rc;
    struct kix_err err;
    uint64_t size;
    int stored;
};

/* 1 when the note is an index note (PROTOCOL.md §4.3): its first line is
 * not an origin a checkpoint may have beside it, its second not a size. */
static int is_index_note(const char *note, size_t len)
{
    size_t n = sizeof(KIX_VINDEX_NOTE_HEADER) - 1;
    return len > n && memcmp(note, KIX_VINDEX_NOTE_HEADER, n) == 0 && note[n] == '\n';
}

static void cosign_work(uv_work_t *req)
{
    struct cosign_job *j = req->data;
    struct kix_vindex_note vn;

    memset(&vn, 0, sizeof(vn));
    if (!is_index_note(j->checkpoint, j->len)) {
        j->rc = kix_log_add_cosignature(j->srv->log, j->checkpoint, j->len, j->line, j->line_len,
                                        j->srv->witnesses, j->srv->nwitnesses, &j->size, &j->stored,
                                        &j->err);
        return;
    }
    /* a witness that recomputed the index cosigns the note of its root too */
    j->rc = kix_vindex_note_open(j->checkpoint, j->len, kix_log_verifier(j->srv->log), NULL, &vn,
                                 &j->err);
    if (j->rc == KIX_OK)
        j->rc = kix_log_add_index_cosignature(j->srv->log, vn.size, j->checkpoint, j->len, j->line,
                                              j->line_len, j->srv->witnesses, j->srv->nwitnesses,
                                              &j->stored, &j->err);
    j->size = vn.size;
}

static void cosign_answer(struct cosign_job *j)
{
    struct kixd_conn *c = j->c;
    struct kix_proto_writer pw;
    struct kix_err werr = {0};
    size_t start = c->out.len;

    kix_proto_writer_init(&pw, &c->out);
    pw.max_message = c->w->srv->cfg->max_message;
    if (j->rc == KIX_OK) {
        struct kix_msg_add_cosignature_result res = {j->size, j->stored != 0};
        kix_proto_begin_response(&pw, j->msgid);
        kix_msg_put_add_cosignature_result(&pw, &res);
        if (kix_proto_writer_end(&pw, &werr) == KIX_OK)
            return;
        c->out.len = start;
        j->rc = KIX_ENOMEM;
    }
    if (kix_proto_write_error(&pw, j->msgid, j->rc, kix_err_text(&j->err, j->rc), &werr) != KIX_OK)
        kixd_conn_close(c, KIXD_WARN, "out of memory answering an error");
}

static void cosign_done(uv_work_t *req, int status)
{
    struct cosign_job *j = req->data;
    struct kixd_conn *c = j->c;
    struct kixd_worker *w = c->w;

    if (status != 0 && j->rc == KIX_OK)
        j->rc = kix_err_set(&j->err, KIX_EUNAVAIL, "kixd is stopping; send it again later");
    if (j->rc == KIX_OK)
        kixd_log(KIXD_DEBUG, "connection %s: %s cosignature for size %llu", c->peer,
                 j->stored ? "stored a" : "already had a newer", (unsigned long long)j->size);
    else
        kixd_log(KIXD_INFO, "connection %s: cosignature refused: %s", c->peer,
                 kix_err_text(&j->err, j->rc));
    if (!c->closing) {
        cosign_answer(j);
        kixd_conn_flush(c, 1);
    }
    assert(c->in_flight > 0 && w->jobs > 0 && c->refs > 0);
    c->in_flight--;
    w->jobs--;
    free(j->checkpoint);
    free(j->line);
    free(j);
    if (!c->closing)
        kixd_conn_resume(c);
    kixd_conn_unref(c);
    kixd_worker_reader_end(w);
    kixd_worker_check_drained(w);
}

int kixd_witness_add(struct kixd_conn *c, uint32_t msgid, const struct kix_bytes *checkpoint,
                     const struct kix_bytes *line, struct kix_err *err)
{
    struct kixd_server *srv = c->w->srv;
    struct cosign_job *j;

    KIXD_ASSERT_LOOP(c->w);
    if (srv->nwitnesses == 0)
        return kix_err_set(err, KIX_EVERIFY,
                           "this server accepts no witness cosignatures (its operator lists the "
                           "witnesses it trusts with kixd serve --witness KEY)");
    if (atomic_load(&srv->stopping))
        return kix_err_set(err, KIX_EUNAVAIL, "kixd is stopping; send it again once it is back");
    if (checkpoint->len == 0 || checkpoint->len > KIX_NOTE_MAX_BYTES || line->len == 0 ||
        line->len > 4096)
        return kix_err_set(err, KIX_EINVAL,
                           "field \"checkpoint\" (a signed note) and \"cosignature\" (one line) "
                           "must be non-empty and small");
    j = calloc(1, sizeof(*j));
    if (j) {
        j->checkpoint = malloc(checkpoint->len);
        j->line = malloc(line->len);
    }
    if (!j || !j->checkpoint || !j->line) {
        if (j) {
            free(j->checkpoint);
            free(j->line);
        }
        free(j);
        return kix_err_set(err, KIX_ENOMEM, "out of memory");
    }
    memcpy(j->checkpoint, checkpoint->ptr, checkpoint->len);
    memcpy(j->line, line->ptr, line->len);
    j->len = checkpoint->len;
    j->line_len = line->len;
    j->c = c;
    j->srv = srv;
    j->msgid = msgid;
    j->req.data = j;
    if (uv_queue_work(&c->w->loop, &j->req, cosign_work, cosign_done) != 0) {
        free(j->checkpoint);
        free(j->line);
        free(j);
        return kix_err_set(err, KIX_EUNAVAIL, "cannot queue the cosignature; retry");
    }
    c->in_flight++;
    c->refs++;
    c->w->jobs++;
    return KIX_OK;
}
