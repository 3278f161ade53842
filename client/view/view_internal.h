/* client/view's own helpers, shared by its files; not public. */
#ifndef KIX_VIEW_INTERNAL_H
#define KIX_VIEW_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* A checkpoint's origin (its first line) into out, cut to cap - 1 bytes. */
void kix__view_origin(const uint8_t *checkpoint, size_t len, char *out, size_t cap);

struct kix_run_view;
#include <jansson.h>

/* The value at JSON pointer ptr (RFC 6901) in doc, or NULL. */
json_t *kix__json_pointer(json_t *doc, const char *ptr);

/* The object the manifest names at spec.<field> (kix_run_object_fields),
 * by its digest, or NULL: never the first object of some kind, so that an
 * object the manifest does not name is never shown in its place. */
json_t *kix__view_object(const struct kix_run_view *v, const char *field);

/* Cuts a UTF-8 sequence left incomplete at the end of s (by snprintf). */
void kix__utf8_trim(char *s);

void kix__view_sections_release(struct kix_run_view *v);

/* A Workload object's words for the home and kernel views
 * (client/view/workload.c): its dtype and its parameters, in one line
 * ("hidden = 512 · seq = 2048", by name). A workload's spec.x (how an
 * older Liger import named the sweep it came from) is not read: sweeps
 * are derived from the parameters (kernel_view.c). */
struct kix__workload_words {
    char dtype[32];
    char summary[160];
    json_t *parameters; /* borrows the workload document; NULL when none */
};
void kix__workload_words(json_t *workload, struct kix__workload_words *out);
/* s (NUL-terminated) copied into out, cut to cap - 1 bytes and never
 * inside a UTF-8 sequence (an incomplete last sequence is dropped). */
void kix__text_copy(char *out, size_t cap, const char *s);
/* A scalar JSON value as text ("512", "0.5", "true", a string as it is). */
void kix__scalar_text(json_t *v, char *out, size_t cap);

/* o's member k set to v (consumed); -1 when v is NULL or out of memory. */
int kix__json_set(json_t *o, const char *k, json_t *v);
/* A view document o (consumed) into out: compact, keys sorted, '/' as
 * "\/" with KIX_VIEW_JSON_HTML; KIX_ENOMEM when bad is set or the text
 * does not fit (workload.c). */
int kix__view_dump(json_t *o, int bad, unsigned flags, struct kix_buf *out, struct kix_err *err);

/* A command document's members, for its text (doc_read.c): a string ("" when
 * absent), a count (0 when absent), whether a member is there (and not null). */
const char *kix__doc_str(const json_t *o, const char *k);
uint64_t kix__doc_u64(const json_t *o, const char *k);
int kix__doc_has(const json_t *o, const char *k);
/* ---- storage, through a source only (view_source.c) ---- */
struct kix_source;
struct kix_run_info;
struct kix_resolution;
struct kix_digest;
/* Object d's bytes into out (reset first). */
int kix__src_object(struct kix_source *s, const struct kix_digest *d, struct kix_buf *out,
                    struct kix_err *err);
int kix__src_run(struct kix_source *s, const char *ref, size_t len, struct kix_run_info *out,
                 struct kix_err *err);
/* run_id's index record into info and its manifest into out (errors unsaid). */
int kix__src_manifest(struct kix_source *s, const char *run_id, struct kix_run_info *info,
                      struct kix_buf *out);
int kix__src_group(struct kix_source *s, const struct kix_digest *key, uint64_t offset,
                   uint64_t limit, int (*fn)(void *, uint64_t, const char *, uint64_t), void *ctx,
                   uint64_t *size, struct kix_err *err);
int kix__src_groups(struct kix_source *s, int (*fn)(void *, const struct kix_digest *), void *ctx,
                    struct kix_err *err);
int kix__src_prove(struct kix_source *s, const char *key, struct kix_buf *record,
                   struct kix_buf *proof, int *present, struct kix_err *err);
int kix__src_state(struct kix_source *s, uint64_t *size, struct kix_buf *checkpoint,
                   struct kix_buf *index_note, struct kix_err *err);
int kix__src_log_key(struct kix_source *s, struct kix_buf *out, struct kix_err *err);
/* The log key, parsed (kept per thread: the same text is parsed once). */
struct kix_verifier;
int kix__src_verifier(struct kix_source *s, struct kix_verifier *out, struct kix_err *err);
/* ref (len bytes) resolved by the source (it need not end in NUL). */
int kix__src_resolve(struct kix_source *s, const char *ref, size_t len, struct kix_resolution *out,
                     struct kix_err *err);

#endif
