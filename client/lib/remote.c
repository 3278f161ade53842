/* TEMPORARY: remote transport not yet written (kixd issue). */
#include "client_internal.h"
int kix__remote_connect(const char *addr, const struct kix_client_opts *opts,
                        struct kix__remote **out, struct kix_err *err)
{
    (void)opts;
    *out = NULL;
    return kix_err_set(err, KIX_EUNAVAIL, "cannot reach %s: remote access is not built yet", addr);
}
void kix__remote_close(struct kix__remote *r)
{
    (void)r;
}
#define NA(...) return KIX_EUNAVAIL
int kix__remote_info(struct kix__remote *r, struct kix_client_info *o, struct kix_err *e)
{
    (void)r;
    (void)o;
    (void)e;
    NA();
}
int kix__remote_checkpoint(struct kix__remote *r, uint64_t s, struct kix_buf *n, struct kix_err *e)
{
    (void)r;
    (void)s;
    (void)n;
    (void)e;
    NA();
}
int kix__remote_entries(struct kix__remote *r, uint64_t a, uint64_t b, kix_entry_fn f, void *c,
                        uint64_t *g, struct kix_err *e)
{
    (void)r;
    (void)a;
    (void)b;
    (void)f;
    (void)c;
    (void)g;
    (void)e;
    NA();
}
int kix__remote_inclusion(struct kix__remote *r, uint64_t a, uint64_t b, struct kix_hash *p,
                          size_t *n, struct kix_err *e)
{
    (void)r;
    (void)a;
    (void)b;
    (void)p;
    (void)n;
    (void)e;
    NA();
}
int kix__remote_consistency(struct kix__remote *r, uint64_t a, uint64_t b, struct kix_hash *p,
                            size_t *n, struct kix_err *e)
{
    (void)r;
    (void)a;
    (void)b;
    (void)p;
    (void)n;
    (void)e;
    NA();
}
int kix__remote_receipt(struct kix__remote *r, uint64_t a, uint64_t b, struct kix_buf *o,
                        struct kix_err *e)
{
    (void)r;
    (void)a;
    (void)b;
    (void)o;
    (void)e;
    NA();
}
int kix__remote_get_object(struct kix__remote *r, const struct kix_digest *d, struct kix_buf *o,
                           struct kix_err *e)
{
    (void)r;
    (void)d;
    (void)o;
    (void)e;
    NA();
}
int kix__remote_submit(struct kix__remote *r, const struct kix_bundle *b, size_t n,
                       struct kix_submit_result *o, struct kix_err *e)
{
    (void)r;
    (void)b;
    (void)n;
    (void)o;
    (void)e;
    NA();
}
int kix__remote_resolve(struct kix__remote *r, const char *ref, struct kix_resolution *o,
                        struct kix_err *e)
{
    (void)r;
    (void)ref;
    (void)o;
    (void)e;
    NA();
}
int kix__remote_checkpoints(struct kix__remote *r, uint64_t a, size_t l, kix_checkpoint_fn f,
                            void *c, struct kix_err *e)
{
    (void)r;
    (void)a;
    (void)l;
    (void)f;
    (void)c;
    (void)e;
    NA();
}
int kix__remote_get_objects(struct kix__remote *r, const struct kix_digest *d, size_t n,
                            kix_object_fn f, void *c, struct kix_err *e)
{
    (void)r;
    (void)d;
    (void)n;
    (void)f;
    (void)c;
    (void)e;
    NA();
}
