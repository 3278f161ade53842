/* kix/proto.h — the kix wire layer: msgpack-RPC framing, decoding, encoding.
 *
 * Messages (proto/PROTOCOL.md is the full spec):
 *   request       [0, msgid, method, [ {params} ]]
 *   response      [1, msgid, error, result]     error: nil or {code, message}
 *   notification  [2, method, [ {params} ]]
 *
 * Reading. A struct kix_proto_reader takes stream bytes in any chunking
 * (kix_proto_reader_feed, or reserve/commit to read straight into it) and
 * hands out whole messages (kix_proto_reader_next). Before msgpack-c sees a
 * byte, an iterative scanner walks the type headers of the buffered bytes
 * and enforces struct kix_proto_limits: no length or count a peer declares
 * is ever used to size memory; a frame is unpacked only once all its bytes
 * are present, so decoding allocates at most frame bytes + 24 bytes per
 * array/map element. The reader never holds more than max_message +
 * KIX_PROTO_READ_CHUNK bytes.
 *
 * Memory. A decoded struct kix_proto_msg owns one block holding a copy of
 * its frame and the decoded tree; every kix_bytes, value, map and array
 * reached from it is borrowed and lives until kix_proto_msg_release().
 * Strings are NOT NUL-terminated and are not checked for UTF-8. The writer
 * appends to a caller-owned struct kix_buf.
 *
 * Errors (negative KIX_E* codes of kix/error.h):
 *   KIX_PROTO_AGAIN (= KIX_ENOTFOUND, err untouched)  more bytes are needed.
 *   KIX_EPROTO  bytes that are not msgpack, or a message of the wrong shape.
 *   KIX_ELIMIT  a frame beyond a limit (size, depth, element count).
 *   KIX_ENOTFOUND  a map field is absent (accessors).
 *   KIX_EINVAL  a field of the wrong type or range; writer misuse.
 *   KIX_ENOMEM  allocation failed.
 * Frame errors are sticky: the reader fails every later call and the
 * connection must be closed. Shape errors consume their frame and are not
 * sticky (see kix_proto_reader_next).
 */
#ifndef KIX_PROTO_H
#define KIX_PROTO_H

#include "kix/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kix/buf.h"
#include "kix/error.h"

/* "Need more bytes" from the reader and scanner. Not an error: feed more. */
#define KIX_PROTO_AGAIN KIX_ENOTFOUND

#define KIX_PROTO_MAX_MESSAGE_DEFAULT ((size_t)16 << 20)
#define KIX_PROTO_MAX_DEPTH_DEFAULT   32u
#define KIX_PROTO_MAX_ITEMS_DEFAULT   ((size_t)1 << 20)
/* Hard ceiling on nesting: msgpack-c's unpacker has a fixed 32-level stack.
 * Larger max_depth values are clamped to it. */
#define KIX_PROTO_DEPTH_MAX 32u
/* The slack the reader allows beyond max_message: one socket read. */
#define KIX_PROTO_READ_CHUNK ((size_t)64 << 10)

enum kix_proto_type {
    KIX_PROTO_INVALID = -1,
    KIX_PROTO_REQUEST = 0,
    KIX_PROTO_RESPONSE = 1,
    KIX_PROTO_NOTIFICATION = 2,
};

/* Bounds on one message. max_depth counts nested arrays and maps, the
 * message array itself included ([0, 1, "m", [{}]] has depth 3). max_items
 * counts array elements plus map keys plus map values, over the whole
 * message. */
struct kix_proto_limits {
    size_t max_message; /* bytes; default 16 MiB */
    unsigned max_depth; /* default 32, at most KIX_PROTO_DEPTH_MAX */
    size_t max_items;   /* default 1 << 20 */
};

KIX_API void kix_proto_limits_default(struct kix_proto_limits *lim);

/* ---- Frame scanner ---------------------------------------------------------
 *
 * Finds where one msgpack value ends without allocating. Resumable: call it
 * again with the same bytes plus more (data must start at the same frame
 * start; it may move in memory). Fields are private. */
struct kix_proto_scanner {
    struct kix_proto_limits lim;
    size_t pos;                         /* next header to read, relative to the frame start */
    size_t items;                       /* elements declared so far */
    unsigned depth;                     /* open containers */
    int done;                           /* the value is complete at pos */
    uint64_t left[KIX_PROTO_DEPTH_MAX]; /* elements still due per level */
};

/* lim NULL means the defaults. Also resets a scanner for the next frame. */
KIX_API void kix_proto_scanner_init(struct kix_proto_scanner *s,
                                    const struct kix_proto_limits *lim);

/* Scans data[0, len). Returns KIX_OK with *frame_len = the value's length
 * (data may hold more after it), KIX_PROTO_AGAIN when more bytes are needed,
 * KIX_EPROTO for a byte that starts no msgpack type (0xc1), KIX_ELIMIT when
 * a declared length, count, the nesting or the element total cannot fit the
 * limits. Errors are final for this frame. */
KIX_API int kix_proto_scan(struct kix_proto_scanner *s, const uint8_t *data, size_t len,
                           size_t *frame_len, struct kix_err *err) KIX_MUST_CHECK;

/* ---- Decoded values --------------------------------------------------------
 *
 * Opaque handles into a decoded message, valid until its release. */
struct kix_proto_value;
struct kix_proto_map;
struct kix_proto_array;
struct kix__proto_doc;

enum kix_proto_kind {
    KIX_PROTO_NIL,
    KIX_PROTO_BOOL,
    KIX_PROTO_INT, /* any integer, signed or not */
    KIX_PROTO_FLOAT,
    KIX_PROTO_STR,
    KIX_PROTO_BIN,
    KIX_PROTO_ARRAY,
    KIX_PROTO_MAP,
    KIX_PROTO_EXT,
};

struct kix_proto_msg {
    int type;                /* enum kix_proto_type */
    uint32_t msgid;          /* requests and responses */
    struct kix_bytes method; /* requests and notifications */
    /* requests and notifications: the one map inside params; its keys are
     * all str (checked when decoding). NULL for responses. */
    const struct kix_proto_map *params;
    /* responses: 0 when error is nil, else the peer's negative KIX_E* code
     * and its message text */
    int error_code;
    struct kix_bytes error_message;
    const struct kix_proto_value *result; /* responses (nil on error) */
    size_t frame_len;                     /* bytes the message took on the wire */
    struct kix__proto_doc *doc;           /* private: the owned memory */
};

/* Sets every field empty (type KIX_PROTO_INVALID). */
KIX_API void kix_proto_msg_init(struct kix_proto_msg *msg);
/* Frees what msg owns and re-inits it; safe on an inited or released msg. */
KIX_API void kix_proto_msg_release(struct kix_proto_msg *msg);

/* Decodes exactly one whole message from data[0, len) (for stored bytes and
 * fuzzing). lim NULL means the defaults. KIX_EPROTO when bytes are missing
 * or trail it; otherwise as kix_proto_reader_next. */
KIX_API int kix_proto_decode(const uint8_t *data, size_t len, const struct kix_proto_limits *lim,
                             struct kix_proto_msg *msg, struct kix_err *err) KIX_MUST_CHECK;

/* For a response: KIX_OK when error is nil, else msg->error_code with err
 * set to "peer error EPOLICY: <message>". */
KIX_API int kix_proto_msg_error(const struct kix_proto_msg *msg, struct kix_err *err);

KIX_API int kix_proto_kind(const struct kix_proto_value *v);
/* "nil", "bool", "int", "float", "str", "bin", "array", "map", "ext". */
KIX_API const char *kix_proto_kind_name(int kind);

/* Typed access to one value. KIX_EINVAL with "expected str, got int" on a
 * wrong kind; integers out of the target's range are KIX_EINVAL too. Views
 * borrow from the message. */
KIX_API int kix_proto_value_str(const struct kix_proto_value *v, struct kix_bytes *out,
                                struct kix_err *err);
KIX_API int kix_proto_value_bin(const struct kix_proto_value *v, struct kix_bytes *out,
                                struct kix_err *err);
KIX_API int kix_proto_value_u64(const struct kix_proto_value *v, uint64_t *out,
                                struct kix_err *err);
KIX_API int kix_proto_value_i64(const struct kix_proto_value *v, int64_t *out, struct kix_err *err);
KIX_API int kix_proto_value_f64(const struct kix_proto_value *v, double *out, struct kix_err *err);
KIX_API int kix_proto_value_bool(const struct kix_proto_value *v, bool *out, struct kix_err *err);
KIX_API int kix_proto_value_map(const struct kix_proto_value *v, const struct kix_proto_map **out,
                                struct kix_err *err);
KIX_API int kix_proto_value_array(const struct kix_proto_value *v,
                                  const struct kix_proto_array **out, size_t *count,
                                  struct kix_err *err);
KIX_API int kix_proto_value_ext(const struct kix_proto_value *v, int8_t *type,
                                struct kix_bytes *data, struct kix_err *err);
KIX_API bool kix_proto_value_is_nil(const struct kix_proto_value *v);

KIX_API size_t kix_proto_array_count(const struct kix_proto_array *a);
/* Element i, or NULL when i >= count. */
KIX_API const struct kix_proto_value *kix_proto_array_at(const struct kix_proto_array *a, size_t i);

KIX_API size_t kix_proto_map_count(const struct kix_proto_map *m);
/* Entry i in wire order (i < count). Keys of nested maps may be any kind. */
KIX_API void kix_proto_map_at(const struct kix_proto_map *m, size_t i,
                              const struct kix_proto_value **key,
                              const struct kix_proto_value **val);

/* Field lookup by str key (entries with other key kinds are skipped).
 * KIX_ENOTFOUND when absent ("missing field \"digest\""), KIX_EINVAL when the
 * key appears twice or the value has the wrong kind ("field \"digest\":
 * expected str, got int"). A lookup costs one pass over the map. */
KIX_API int kix_proto_map_get(const struct kix_proto_map *m, const char *name,
                              const struct kix_proto_value **out, struct kix_err *err);
KIX_API int kix_proto_map_get_str(const struct kix_proto_map *m, const char *name,
                                  struct kix_bytes *out, struct kix_err *err);
KIX_API int kix_proto_map_get_bin(const struct kix_proto_map *m, const char *name,
                                  struct kix_bytes *out, struct kix_err *err);
KIX_API int kix_proto_map_get_u64(const struct kix_proto_map *m, const char *name, uint64_t *out,
                                  struct kix_err *err);
KIX_API int kix_proto_map_get_i64(const struct kix_proto_map *m, const char *name, int64_t *out,
                                  struct kix_err *err);
KIX_API int kix_proto_map_get_f64(const struct kix_proto_map *m, const char *name, double *out,
                                  struct kix_err *err);
KIX_API int kix_proto_map_get_bool(const struct kix_proto_map *m, const char *name, bool *out,
                                   struct kix_err *err);
KIX_API int kix_proto_map_get_map(const struct kix_proto_map *m, const char *name,
                                  const struct kix_proto_map **out, struct kix_err *err);
KIX_API int kix_proto_map_get_array(const struct kix_proto_map *m, const char *name,
                                    const struct kix_proto_array **out, size_t *count,
                                    struct kix_err *err);

/* ---- Stream reader ---------------------------------------------------------
 *
 * One per connection; the caller allocates it. Fields are private. */
struct kix_proto_reader {
    struct kix_proto_scanner scan; /* state of the frame at off */
    struct kix_buf buf;            /* received bytes; [off, len) not yet consumed */
    size_t off;
    int failed; /* sticky frame error, 0 while the stream is usable */
};

/* lim NULL means the defaults. Allocates nothing. */
KIX_API void kix_proto_reader_init(struct kix_proto_reader *r, const struct kix_proto_limits *lim);
KIX_API void kix_proto_reader_release(struct kix_proto_reader *r);

/* Appends len bytes. KIX_ELIMIT (sticky) when the unconsumed bytes would
 * exceed max_message + KIX_PROTO_READ_CHUNK: call kix_proto_reader_next until
 * KIX_PROTO_AGAIN after every feed. KIX_ENOMEM. */
KIX_API int kix_proto_reader_feed(struct kix_proto_reader *r, const void *data, size_t len,
                                  struct kix_err *err) KIX_MUST_CHECK;

/* Zero-copy reading (for a libuv alloc_cb): returns room for up to `want`
 * bytes at *space (*avail may be less than want near the bound, never 0 on
 * success); write into it, then kix_proto_reader_commit() the count written.
 * No other reader call may come in between. Errors as feed. */
KIX_API int kix_proto_reader_reserve(struct kix_proto_reader *r, size_t want, uint8_t **space,
                                     size_t *avail, struct kix_err *err) KIX_MUST_CHECK;
KIX_API void kix_proto_reader_commit(struct kix_proto_reader *r, size_t n);

/* Takes the next whole message. msg need not be inited; on success the
 * caller releases it. Returns:
 *   KIX_OK            a message.
 *   KIX_PROTO_AGAIN   no whole message buffered yet (err untouched).
 *   KIX_EPROTO, KIX_ELIMIT with kix_proto_reader_failed() != 0: the stream
 *                     is broken; close the connection.
 *   KIX_EPROTO with kix_proto_reader_failed() == 0: a well-framed message of
 *                     the wrong shape was consumed. When it was a request
 *                     with a readable msgid, msg->type is KIX_PROTO_REQUEST
 *                     and msg->msgid is set so a server can answer the error.
 *   KIX_ENOMEM (sticky: the message is lost, close the connection).
 * On any return other than KIX_OK, msg owns nothing. */
KIX_API int kix_proto_reader_next(struct kix_proto_reader *r, struct kix_proto_msg *msg,
                                  struct kix_err *err) KIX_MUST_CHECK;

/* The sticky frame error, or 0. */
KIX_API int kix_proto_reader_failed(const struct kix_proto_reader *r);
/* Bytes received and not yet handed out as messages. */
KIX_API size_t kix_proto_reader_buffered(const struct kix_proto_reader *r);
/* Bytes of memory the reader holds now. */
KIX_API size_t kix_proto_reader_allocated(const struct kix_proto_reader *r);

/* ---- Writer ----------------------------------------------------------------
 *
 * Appends whole messages to a caller-owned kix_buf. Each message is
 * kix_proto_begin_*, puts, kix_proto_writer_end. The writer counts what was
 * declared: every map/array count must be met exactly, map entries are
 * kix_proto_put_key + one value, and params must be a map. Put calls return
 * the first error of the message and then do nothing (so a builder can check
 * once); kix_proto_writer_end reports it, and on any error removes the
 * partial message from the buffer, leaving earlier messages intact.
 * Fields are private except max_message. */
struct kix_proto_writer {
    struct kix_buf *out;
    size_t max_message; /* end fails with KIX_ELIMIT beyond it; default 16 MiB */
    size_t start;       /* offset of the message being written */
    int active;
    int rc;
    int want_map;
    unsigned depth;
    uint32_t is_map; /* bit d: level d is a map */
    uint64_t left[KIX_PROTO_DEPTH_MAX];
    struct kix_err err;
};

KIX_API void kix_proto_writer_init(struct kix_proto_writer *w, struct kix_buf *out);

/* [0, msgid, method, [ ... ]]: next put the params map (kix_proto_put_map). */
KIX_API int kix_proto_begin_request(struct kix_proto_writer *w, uint32_t msgid, const char *method);
/* [2, method, [ ... ]]: next put the params map. */
KIX_API int kix_proto_begin_notification(struct kix_proto_writer *w, const char *method);
/* [1, msgid, nil, ...]: next put exactly one value, the result. */
KIX_API int kix_proto_begin_response(struct kix_proto_writer *w, uint32_t msgid);
/* Checks the message is complete and within max_message. KIX_EINVAL for a
 * misuse (message names it), KIX_ELIMIT, KIX_ENOMEM. */
KIX_API int kix_proto_writer_end(struct kix_proto_writer *w, struct kix_err *err) KIX_MUST_CHECK;

/* A whole error response [1, msgid, {code, message}, nil]; code is a
 * negative KIX_E* code (KIX_EINVAL otherwise). */
KIX_API int kix_proto_write_error(struct kix_proto_writer *w, uint32_t msgid, int code,
                                  const char *message, struct kix_err *err) KIX_MUST_CHECK;

KIX_API int kix_proto_put_nil(struct kix_proto_writer *w);
KIX_API int kix_proto_put_bool(struct kix_proto_writer *w, bool v);
KIX_API int kix_proto_put_u64(struct kix_proto_writer *w, uint64_t v);
KIX_API int kix_proto_put_i64(struct kix_proto_writer *w, int64_t v);
KIX_API int kix_proto_put_f64(struct kix_proto_writer *w, double v);
/* Text as msgpack str (len < 4 GiB). */
KIX_API int kix_proto_put_str(struct kix_proto_writer *w, const void *s, size_t len);
KIX_API int kix_proto_put_cstr(struct kix_proto_writer *w, const char *s);
/* Bytes as msgpack bin (len < 4 GiB). */
KIX_API int kix_proto_put_bin(struct kix_proto_writer *w, const void *data, size_t len);
KIX_API int kix_proto_put_ext(struct kix_proto_writer *w, int8_t type, const void *data,
                              size_t len);
/* Containers: then exactly count values (arrays) or count key+value pairs. */
KIX_API int kix_proto_put_array(struct kix_proto_writer *w, size_t count);
KIX_API int kix_proto_put_map(struct kix_proto_writer *w, size_t count);
/* A str map key; only where a key is due. */
KIX_API int kix_proto_put_key(struct kix_proto_writer *w, const char *name);
/* A copy of a decoded value (counts as one value). */
KIX_API int kix_proto_put_value(struct kix_proto_writer *w, const struct kix_proto_value *v);

#endif
