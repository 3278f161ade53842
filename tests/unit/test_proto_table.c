/* The message table (kix/messages.h, proto/src/message_table.c): every
 * method's params and result, filled from the table with every optional
 * field present and again with none, encode to the bytes the hand-written
 * codec of kix 0.1 wrote (golden below), decode and encode again to the
 * same bytes; and PROTOCOL.md section 2 names, types and marks optional
 * exactly the fields the table declares. */
#include "harness.h"
#include "kix/messages.h"

/* ---- a message filled from its table --------------------------------------------- */

struct arena {
    void *blocks[4096];
    size_t n;
};

static void *take(struct arena *a, size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (!p || a->n == sizeof(a->blocks) / sizeof(a->blocks[0]))
        abort();
    a->blocks[a->n++] = p;
    return p;
}

static void arena_free(struct arena *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->blocks[i]);
    a->n = 0;
}

#define AT(base, off, type) ((type *)(void *)((char *)(base) + (off)))

static bool guard(const struct kix_msg_field *f, const void *base)
{
    switch (f->when) {
    case KIX_MSG_WHEN_BOOL:
        return *(const bool *)((const char *)base + f->when_off);
    case KIX_MSG_WHEN_PTR:
        return ((const struct kix_bytes *)(const void *)((const char *)base + f->when_off))->ptr;
    case KIX_MSG_WHEN_ZERO:
        return *(const int64_t *)(const void *)((const char *)base + f->when_off) == 0;
    default:
        return true;
    }
}

static struct kix_bytes text(struct arena *a, const char *name, unsigned *seq, size_t max)
{
    char *s = take(a, 80);
    int n = snprintf(s, 80, "%s-%u", name, (*seq)++);
    struct kix_bytes b = {(const uint8_t *)s, max && (size_t)n > max ? max : (size_t)n};
    return b;
}

static void fill_at(struct arena *a, const struct kix_msg_table *t, void *base, bool full,
                    unsigned *seq);

/* full: every optional field present, every group there (a list's
 * second element the other way, so both forms of a union appear) */
static void fill_field(struct arena *a, const struct kix_msg_field *f, void *base, bool full,
                       unsigned *seq)
{
    void *v = (char *)base + f->off;
    bool opt = (f->flags & KIX_MSG_OPT) != 0;
    size_t n;

    if (!guard(f, base))
        return;
    switch (f->kind) {
    case KIX_MSG_U64:
        *(uint64_t *)v = opt && !full ? ((f->flags & KIX_MSG_ZERO) ? 0 : KIX_MSG_ABSENT)
                                      : 1000u + 77u * (*seq)++;
        return;
    case KIX_MSG_I64:
        *(int64_t *)v = full ? -8 : 0;
        return;
    case KIX_MSG_BOOL:
    case KIX_MSG_FLAG:
        *(bool *)v = full;
        return;
    case KIX_MSG_STR:
    case KIX_MSG_BIN:
        if (!opt || full)
            *(struct kix_bytes *)v = text(a, f->name, seq, f->max);
        return;
    case KIX_MSG_HASH:
    case KIX_MSG_DIGEST:
    case KIX_MSG_KEYID:
        if (opt && !full)
            return;
        for (int i = 0; i < 32; i++)
            ((uint8_t *)v)[i] = (uint8_t)(*seq * 31 + i * 7);
        (*seq)++;
        if (f->aux != KIX_MSG_NO_AUX)
            *AT(base, f->aux, bool) = true;
        return;
    case KIX_MSG_PROOF:
        n = full ? 3 : 1;
        for (size_t k = 0; k < n; k++)
            for (int i = 0; i < 32; i++)
                (*(uint8_t(*)[KIX_MSG_MAX_PROOF][32])v)[k][i] = (uint8_t)(*seq + k + i);
        (*seq)++;
        *AT(base, f->aux, size_t) = n;
        return;
    case KIX_MSG_MAP:
        if (f->aux != KIX_MSG_NO_AUX)
            *AT(base, f->aux, bool) = full;
        if (full || f->aux == KIX_MSG_NO_AUX)
            fill_at(a, f->sub, v, full, seq);
        return;
    default:
        break;
    }
    /* arrays of two (none for an optional one in the minimal message) */
    n = opt && !full ? 0 : 2;
    *AT(base, f->aux, size_t) = n;
    if (f->kind == KIX_MSG_BINS) {
        struct kix_bytes *b = take(a, 2 * sizeof(*b));
        for (size_t i = 0; i < n; i++)
            b[i] = text(a, f->name, seq, 0);
        if (full && (f->flags & KIX_MSG_NIL))
            b[1].ptr = NULL, b[1].len = 0;
        *(struct kix_bytes **)v = b;
    } else if (f->kind == KIX_MSG_DIGESTS) {
        uint8_t(*d)[32] = take(a, 64);
        for (size_t i = 0; i < 64; i++)
            d[i / 32][i % 32] = (uint8_t)(*seq + i);
        (*seq)++;
        *(uint8_t(**)[32])v = d;
    } else {
        char *e = take(a, 2 * f->sub->size);
        for (size_t i = 0; i < n; i++)
            fill_at(a, f->sub, e + i * f->sub->size, i == 0 ? full : !full, seq);
        *(char **)v = e;
    }
}

static void fill_at(struct arena *a, const struct kix_msg_table *t, void *base, bool full,
                    unsigned *seq)
{
    for (size_t i = 0; i < t->nfields; i++)
        fill_field(a, &t->fields[i], base, full, seq);
}

/* ---- the functions of kix/messages.h per method -------------------------------------- */

#define PUT(fn, type)                                                                              \
    static int put_##fn(struct kix_proto_writer *w, const void *p)                                 \
    {                                                                                              \
        return kix_msg_put_##fn(w, (const type *)p);                                               \
    }
static int put_none(struct kix_proto_writer *w, const void *p)
{
    (void)p;
    return kix_proto_put_map(w, 0);
}
PUT(info_result, struct kix_msg_info)
PUT(submit_params, struct kix_msg_submit_params)
PUT(submit_result, struct kix_msg_submit_result)
PUT(get_object_params, struct kix_msg_get_object_params)
PUT(get_object_result, struct kix_msg_get_object_result)
PUT(get_objects_params, struct kix_msg_get_objects_params)
PUT(get_objects_result, struct kix_msg_get_objects_result)
PUT(get_entries_params, struct kix_msg_get_entries_params)
PUT(get_entries_result, struct kix_msg_entries)
PUT(entries_notification, struct kix_msg_entries)
PUT(checkpoint_params, struct kix_msg_checkpoint_params)
PUT(checkpoint_result, struct kix_msg_checkpoint_result)
PUT(index_params, struct kix_msg_index_params)
PUT(inclusion_result, struct kix_msg_inclusion_result)
PUT(consistency_params, struct kix_msg_consistency_params)
PUT(consistency_result, struct kix_msg_consistency_result)
PUT(receipt_result, struct kix_msg_receipt_result)
PUT(resolve_params, struct kix_msg_resolve_params)
PUT(resolve_result, struct kix_msg_resolve_result)
PUT(follow_params, struct kix_msg_follow_params)
PUT(follow_result, struct kix_msg_size_result)
PUT(replicated_params, struct kix_msg_replicated_params)
PUT(checkpoints_params, struct kix_msg_checkpoints_params)
PUT(checkpoints_result, struct kix_msg_checkpoints_result)
PUT(query_params, struct kix_msg_query_params)
PUT(query_result, struct kix_msg_query_result)
PUT(add_cosignature_params, struct kix_msg_add_cosignature_params)
PUT(add_cosignature_result, struct kix_msg_add_cosignature_result)
PUT(vindex_params, struct kix_msg_vindex_params)
PUT(vindex_result, struct kix_msg_vindex_result)

typedef int (*put_fn)(struct kix_proto_writer *, const void *);

/* in the order of kix_msg_methods, then the notification */
static const struct {
    const char *method;
    put_fn params, result;
} puts_[] = {
    {"info", put_none, put_info_result},
    {"submit", put_submit_params, put_submit_result},
    {"get_object", put_get_object_params, put_get_object_result},
    {"get_objects", put_get_objects_params, put_get_objects_result},
    {"get_entries", put_get_entries_params, put_get_entries_result},
    {"checkpoint", put_checkpoint_params, put_checkpoint_result},
    {"inclusion_proof", put_index_params, put_inclusion_result},
    {"consistency_proof", put_consistency_params, put_consistency_result},
    {"receipt", put_index_params, put_receipt_result},
    {"resolve", put_resolve_params, put_resolve_result},
    {"follow", put_follow_params, put_follow_result},
    {"replicated", put_replicated_params, put_follow_result},
    {"checkpoints", put_checkpoints_params, put_checkpoints_result},
    {"query", put_query_params, put_query_result},
    {"add_cosignature", put_add_cosignature_params, put_add_cosignature_result},
    {"index_proof", put_vindex_params, put_vindex_result},
};

/* One value written alone (a response's result) through put. */
static void encode_with(put_fn put, const void *p, struct kix_buf *out)
{
    struct kix_proto_writer w;
    struct kix_err err;

    kix_buf_reset(out);
    kix_proto_writer_init(&w, out);
    kix_proto_begin_response(&w, 1);
    if (put(&w, p) != KIX_OK || kix_proto_writer_end(&w, &err) != KIX_OK)
        abort();
}

static void hex(const struct kix_buf *b, char *out)
{
    for (size_t i = 0; i < b->len; i++)
        sprintf(out + 2 * i, "%02x", b->ptr[i]);
    out[2 * b->len] = '\0';
}

/* The messages of the test: method i's params (dir 0) or result (1),
 * full or minimal. The notification is method kix_msg_nmethods. */
static const struct kix_msg_table *table_of(size_t i, int dir)
{
    if (i == kix_msg_nmethods)
        return &kix_msg_entries_notification_table;
    return dir ? kix_msg_methods[i].result : kix_msg_methods[i].params;
}

static put_fn put_of(size_t i, int dir)
{
    if (i == kix_msg_nmethods)
        return put_entries_notification;
    return dir ? puts_[i].result : puts_[i].params;
}

KIX_TEST(print_golden)
{
    struct kix_buf b = KIX_BUF_INIT;
    static char h[1 << 16];

    if (!getenv("KIX_PRINT_GOLDEN"))
        return;
    for (size_t i = 0; i <= kix_msg_nmethods; i++)
        for (int dir = 0; dir < 2; dir++)
            for (int full = 1; full >= 0; full--) {
                struct arena a = {.n = 0};
                const struct kix_msg_table *t = table_of(i, dir);
                unsigned seq = 1;
                void *p;
                if (i == kix_msg_nmethods && dir == 0)
                    continue;
                p = take(&a, t->size + 64);
                fill_at(&a, t, p, full, &seq);
                encode_with(put_of(i, dir), p, &b);
                hex(&b, h);
                printf("    {\"%s\", %d, %d, \"%s\"},\n",
                       i == kix_msg_nmethods ? "entries" : kix_msg_methods[i].name, dir, full, h);
                arena_free(&a);
            }
    kix_buf_release(&b);
}

/* The bytes kix 0.1's hand-written encoders (messages.c before the table)
 * wrote for these messages (KIX_PRINT_GOLDEN=1 test_proto_table
 * print_golden prints them), as a response's result. */
static const struct {
    const char *method;
    int dir, full;
    const char *hex;
} golden[] = {
    {"info", 0, 1, "940101c080"},
    {"info", 0, 0, "940101c080"},
    {"info", 1, 1,
     "940101c08da66f726967696ea86f726967696e2d31a66c6f674b6579a86c6f674b65792d32a473697a65cd04cfa77"
     "6657273696f6ea976657273696f6e2d34a66d6972726f72c3a66c696d69747387aa6d61784d657373616765cd0569"
     "ab6d6178496e466c69676874cd05b6a86d61784261746368cd0603aa6d6178456e7472696573cd0650aa6d61784f6"
     "26a65637473cd069dae6d6178436865636b706f696e7473cd06eaa76d617852756e73cd0737a8757073747265616d"
     "ab757073747265616d2d3132ac757073747265616d53697a65cd07d1aa6c6167456e7472696573cd081eaa6c61675"
     "365636f6e6473cd086ba96c6173744572726f72ac6c6173744572726f722d3136a4666f726b83a473697a65cd0905"
     "a6726561736f6ea9726561736f6e2d3138a865766964656e6365ab65766964656e63652d3139a9636f6d6d6974746"
     "564cd09ec"},
    {"info", 1, 0,
     "940101c084a66f726967696ea86f726967696e2d31a66c6f674b6579a86c6f674b65792d32a473697a65cd04cfa66"
     "d6972726f72c2"},
    {"submit", 0, 1,
     "940101c081a762756e646c65739282a8656e76656c6f7065c40a656e76656c6f70652d31a76f626a6563747392c40"
     "96f626a656374732d32c4096f626a656374732d3381a8656e76656c6f7065c40a656e76656c6f70652d34"},
    {"submit", 0, 0,
     "940101c081a762756e646c65739281a8656e76656c6f7065c40a656e76656c6f70652d3182a8656e76656c6f7065c"
     "40a656e76656c6f70652d32a76f626a6563747392c4096f626a656374732d33c4096f626a656374732d34"},
    {"submit", 1, 1,
     "940101c082a7726573756c74739281a56572726f7282a4636f6465f8a76d657373616765a96d6573736167652d318"
     "4a5696e646578cd04cfa86c65616648617368c4207c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b"
     "323940474e55a96475706c6963617465c2a772656365697074a9726563656970742d35a473697a65cd05b6"},
    {"submit", 1, 0,
     "940101c082a7726573756c74739284a5696e646578cd0482a86c65616648617368c4205d646b727980878e959ca3a"
     "ab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f36a96475706c6963617465c2a772656365697074a9726563656970"
     "742d3481a56572726f7282a4636f6465f8a76d657373616765a96d6573736167652d35a473697a65cd05b6"},
    {"get_object", 0, 1,
     "940101c081a6646967657374d9477368613235363a316632363264333433623432343935303537356536353663373"
     "33761383138383866393639646134616262326239633063376365643564636533656166316638"},
    {"get_object", 0, 0,
     "940101c081a6646967657374d9477368613235363a316632363264333433623432343935303537356536353663373"
     "33761383138383866393639646134616262326239633063376365643564636533656166316638"},
    {"get_object", 1, 1, "940101c081a66f626a656374c4086f626a6563742d31"},
    {"get_object", 1, 0, "940101c081a66f626a656374c4086f626a6563742d31"},
    {"get_objects", 0, 1,
     "940101c081a76469676573747392d9477368613235363a30313032303330343035303630373038303930613062306"
     "330643065306631303131313231333134313531363137313831393161316231633164316531663230d94773686132"
     "35363a323132323233323432353236323732383239326132623263326432653266333033313332333333343335333"
     "63337333833393361336233633364336533663430"},
    {"get_objects", 0, 0,
     "940101c081a76469676573747392d9477368613235363a30313032303330343035303630373038303930613062306"
     "330643065306631303131313231333134313531363137313831393161316231633164316531663230d94773686132"
     "35363a323132323233323432353236323732383239326132623263326432653266333033313332333333343335333"
     "63337333833393361336233633364336533663430"},
    {"get_objects", 1, 1, "940101c081a76f626a6563747392c4096f626a656374732d31c0"},
    {"get_objects", 1, 0,
     "940101c081a76f626a6563747392c4096f626a656374732d31c4096f626a656374732d32"},
    {"get_entries", 0, 1, "940101c082a57374617274cd0435a5636f756e74cd0482"},
    {"get_entries", 0, 0, "940101c082a57374617274cd0435a5636f756e74cd0482"},
    {"get_entries", 1, 1,
     "940101c082a57374617274cd0435a7656e747269657392c409656e74726965732d32c409656e74726965732d33"},
    {"get_entries", 1, 0,
     "940101c082a57374617274cd0435a7656e747269657392c409656e74726965732d32c409656e74726965732d33"},
    {"checkpoint", 0, 1, "940101c081a473697a65cd0435"},
    {"checkpoint", 0, 0, "940101c080"},
    {"checkpoint", 1, 1,
     "940101c082aa636865636b706f696e74ac636865636b706f696e742d31a473697a65cd0482"},
    {"checkpoint", 1, 0,
     "940101c082aa636865636b706f696e74ac636865636b706f696e742d31a473697a65cd0482"},
    {"inclusion_proof", 0, 1, "940101c082a5696e646578cd0435a473697a65cd0482"},
    {"inclusion_proof", 0, 0, "940101c081a5696e646578cd0435"},
    {"inclusion_proof", 1, 1,
     "940101c084a5696e646578cd0435a473697a65cd0482a86c65616648617368c4205d646b727980878e959ca3aab1b"
     "8bfc6cdd4dbe2e9f0f7fe050c131a21282f36a570726f6f6693c4200405060708090a0b0c0d0e0f10111213141516"
     "1718191a1b1c1d1e1f20212223c42005060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232"
     "4c420060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425"},
    {"inclusion_proof", 1, 0,
     "940101c084a5696e646578cd0435a473697a65cd0482a86c65616648617368c4205d646b727980878e959ca3aab1b"
     "8bfc6cdd4dbe2e9f0f7fe050c131a21282f36a570726f6f6691c4200405060708090a0b0c0d0e0f10111213141516"
     "1718191a1b1c1d1e1f20212223"},
    {"consistency_proof", 0, 1, "940101c082a573697a6531cd0435a573697a6532cd0482"},
    {"consistency_proof", 0, 0, "940101c081a573697a6531cd0435"},
    {"consistency_proof", 1, 1,
     "940101c083a573697a6531cd0435a573697a6532cd0482a570726f6f6693c420030405060708090a0b0c0d0e0f101"
     "112131415161718191a1b1c1d1e1f202122c4200405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e"
     "1f20212223c42005060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324"},
    {"consistency_proof", 1, 0,
     "940101c083a573697a6531cd0435a573697a6532cd0482a570726f6f6691c420030405060708090a0b0c0d0e0f101"
     "112131415161718191a1b1c1d1e1f202122"},
    {"receipt", 0, 1, "940101c082a5696e646578cd0435a473697a65cd0482"},
    {"receipt", 0, 0, "940101c081a5696e646578cd0435"},
    {"receipt", 1, 1, "940101c081a772656365697074a9726563656970742d31"},
    {"receipt", 1, 0, "940101c081a772656365697074a9726563656970742d31"},
    {"resolve", 0, 1, "940101c082a3726566a57265662d31a466726f6dcd0482"},
    {"resolve", 0, 0, "940101c081a3726566a57265662d31"},
    {"resolve", 1, 1,
     "940101c0de001ea572756e4964a772756e49642d31a6646967657374d9477368613235363a3365343534633533356"
     "136313638366637363764383438623932393961306137616562356263633363616431643864666536656466346662"
     "3032303931303137a97065726d616c696e6bab7065726d616c696e6b2d33a865766964656e6365aa65766964656e6"
     "3652d34ad65766964656e6365496e646578cd0569a9737563636573736f72ab737563636573736f722d36ab707265"
     "6465636573736f72ad7072656465636573736f722d37b1737570657273656465644279496e646578cd0650af73757"
     "065727365646573496e646578cd069dad636f6d70617269736f6e4b6579d9477368613235363a3336336434343462"
     "353235393630363736653735376338333861393139383966613661646234626263326339643064376465653565636"
     "6336661303130383066a472616e6bcd0737a967726f757053697a65cd0784a462657374a7626573742d3133a97075"
     "626c6973686572d940623262396330633763656435646365336561663166386666303630643134316232323239333"
     "03337336534353463353335613631363836663736376438343862b07075626c69636174696f6e496e646578cd086b"
     "ac6174746573746174696f6e73cd08b8a6726572756e73cd0905a86d616e6966657374c40b6d616e69666573742d3"
     "138a76f626a656374739282a6646967657374d9477368613235363a34643534356236323639373037373765383538"
     "633933396161316138616662366264633463626432643965306537656566356663303330613131313831663236a66"
     "f626a656374c4096f626a6563742d323082a6646967657374d9477368613235363a38623932393961306137616562"
     "356263633363616431643864666536656466346662303230393130313731653235326333333361343134383466353"
     "635643634a66f626a656374c4096f626a6563742d3232a7656e74726965739284a5696e646578cd0ad3a474797065"
     "a7747970652d3234a46c656166c4076c6561662d3235a570726f6f6693c4201a1b1c1d1e1f2021222324252627282"
     "92a2b2c2d2e2f30313233343536373839c4201b1c1d1e1f202122232425262728292a2b2c2d2e2f30313233343536"
     "3738393ac4201c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b84a5696e646578cd0"
     "c07a474797065a7747970652d3238a46c656166c4076c6561662d3239a570726f6f6691c4201e1f20212223242526"
     "2728292a2b2c2d2e2f303132333435363738393a3b3c3daa636865636b706f696e74ad636865636b706f696e742d3"
     "331a9696e6465784e6f7465ac696e6465784e6f74652d3332a972756e5265636f7264c40c72756e5265636f72642d"
     "3333a872756e50726f6f66c40b72756e50726f6f662d3334ab656e747269657346726f6dcd0e6fab67726f7570526"
     "5636f7264c40e67726f75705265636f72642d3336aa67726f757050726f6f66c40d67726f757050726f6f662d3337"
     "a967726f757050616765c40c67726f7570506167652d3338ae67726f75705061676550726f6f66c41167726f75705"
     "061676550726f6f662d3339a473697a65cd0ff0"},
    {"resolve", 1, 0,
     "940101c08da572756e4964a772756e49642d31a6646967657374d9477368613235363a33653435346335333561363"
     "136383666373637643834386239323939613061376165623562636333636164316438646665366564663466623032"
     "303931303137a97065726d616c696e6bab7065726d616c696e6b2d33a865766964656e6365aa65766964656e63652"
     "d34a97075626c6973686572d940396261326139623062376265633563636433646165316538656666366664303430"
     "62313231393230323732653335336334333461353135383566363636643734b07075626c69636174696f6e496e646"
     "578cd05b6ac6174746573746174696f6e73cd0603a6726572756e73cd0650a86d616e6966657374c40a6d616e6966"
     "6573742d39a76f626a656374739282a6646967657374d9477368613235363a3336336434343462353235393630363"
     "736653735376338333861393139383966613661646234626263326339643064376465653565636633666130313038"
     "3066a66f626a656374c4096f626a6563742d313182a6646967657374d9477368613235363a3734376238323839393"
     "039373965613561636233626163316338636664366464653465626632663930303037306531353163323332613331"
     "3338336634363464a66f626a656374c4096f626a6563742d3133a7656e74726965739284a5696e646578cd081ea47"
     "4797065a7747970652d3135a46c656166c4076c6561662d3136a570726f6f6691c4201112131415161718191a1b1c"
     "1d1e1f202122232425262728292a2b2c2d2e2f3084a5696e646578cd0952a474797065a7747970652d3139a46c656"
     "166c4076c6561662d3230a570726f6f6693c42015161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
     "3031323334c420161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435c4201718191a1b1"
     "c1d1e1f202122232425262728292a2b2c2d2e2f30313233343536aa636865636b706f696e74ad636865636b706f69"
     "6e742d3232a473697a65cd0ad3"},
    {"follow", 0, 1, "940101c082a466726f6dcd0435a77265706c696361c3"},
    {"follow", 0, 0, "940101c081a466726f6dcd0435"},
    {"follow", 1, 1, "940101c081a473697a65cd0435"},
    {"follow", 1, 0, "940101c081a473697a65cd0435"},
    {"replicated", 0, 1,
     "940101c085a473697a65cd0435a4726f6f74c4203e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf"
     "4fb02091017a66d6972726f72a86d6972726f722d33ab636f7369676e6174757265ad636f7369676e61747572652d"
     "34a468656c64a668656c642d35"},
    {"replicated", 0, 0,
     "940101c083a473697a65cd0435a4726f6f74c4203e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf"
     "4fb02091017a66d6972726f72a86d6972726f722d33"},
    {"replicated", 1, 1, "940101c081a473697a65cd0435"},
    {"replicated", 1, 0, "940101c081a473697a65cd0435"},
    {"checkpoints", 0, 1, "940101c082a56166746572cd0435a56c696d6974cd0482"},
    {"checkpoints", 0, 0, "940101c081a56166746572cd0435"},
    {"checkpoints", 1, 1,
     "940101c081ab636865636b706f696e74739283a473697a65cd0435aa636865636b706f696e74ac636865636b706f6"
     "96e742d32a9696e6465784e6f7465ab696e6465784e6f74652d3382a473697a65cd051caa636865636b706f696e74"
     "ac636865636b706f696e742d35"},
    {"checkpoints", 1, 0,
     "940101c081ab636865636b706f696e74739282a473697a65cd0435aa636865636b706f696e74ac636865636b706f6"
     "96e742d3283a473697a65cd04cfaa636865636b706f696e74ac636865636b706f696e742d34a9696e6465784e6f74"
     "65ab696e6465784e6f74652d35"},
    {"query", 0, 1,
     "940101c089a66b65726e656ca86b65726e656c2d31a3677075a56770752d32a870726f7669646572aa70726f76696"
     "465722d33a46d6f6465a66d6f64652d34a66d6574726963a86d65747269632d35a56474797065a764747970652d36"
     "a567726f7570d9477368613235363a643965306537656566356663303330613131313831663236326433343362343"
     "23439353035373565363536633733376138313838386639363964613461626232a66f6666736574cd0650a56c696d"
     "6974cd069d"},
    {"query", 0, 0, "940101c080"},
    {"query", 1, 1,
     "940101c082a76d617463686564cd0435a472756e73928ca572756e4964a772756e49642d32a6646967657374d9477"
     "368613235363a35643634366237323739383038373865393539636133616162316238626663366364643464626532"
     "653966306637666530353063313331613231323832663336a567726f7570d9477368613235363a376338333861393"
     "139383966613661646234626263326339643064376465653565636633666130313038306631363164323432623332"
     "33393430343734653535a472616e6bcd0569a967726f757053697a65cd05b6a576616c7565cd0603a865766964656"
     "e6365aa65766964656e63652d38a66b65726e656ca86b65726e656c2d39a3677075a66770752d3130a870726f7669"
     "646572ab70726f76696465722d3131a46d6f6465a76d6f64652d3132a66d6574726963a96d65747269632d31338ca"
     "572756e4964a872756e49642d3134a6646967657374d9477368613235363a64316438646665366564663466623032"
     "303931303137316532353263333333613431343834663536356436343662373237393830383738653935396361336"
     "161a567726f7570d9477368613235363a663066376665303530633133316132313238326633363364343434623532"
     "35393630363736653735376338333861393139383966613661646234626263326339a472616e6bcd0905a967726f7"
     "57053697a65cd0952a576616c7565cd099fa865766964656e6365ab65766964656e63652d3230a66b65726e656ca9"
     "6b65726e656c2d3231a3677075a66770752d3232a870726f7669646572ab70726f76696465722d3233a46d6f6465a"
     "76d6f64652d3234a66d6574726963a96d65747269632d3235"},
    {"query", 1, 0,
     "940101c082a76d617463686564cd0435a472756e73928ca572756e4964a772756e49642d32a6646967657374d9477"
     "368613235363a35643634366237323739383038373865393539636133616162316238626663366364643464626532"
     "653966306637666530353063313331613231323832663336a567726f7570d9477368613235363a376338333861393"
     "139383966613661646234626263326339643064376465653565636633666130313038306631363164323432623332"
     "33393430343734653535a472616e6bcd0569a967726f757053697a65cd05b6a576616c7565cd0603a865766964656"
     "e6365aa65766964656e63652d38a66b65726e656ca86b65726e656c2d39a3677075a66770752d3130a870726f7669"
     "646572ab70726f76696465722d3131a46d6f6465a76d6f64652d3132a66d6574726963a96d65747269632d31338ca"
     "572756e4964a872756e49642d3134a6646967657374d9477368613235363a64316438646665366564663466623032"
     "303931303137316532353263333333613431343834663536356436343662373237393830383738653935396361336"
     "161a567726f7570d9477368613235363a663066376665303530633133316132313238326633363364343434623532"
     "35393630363736653735376338333861393139383966613661646234626263326339a472616e6bcd0905a967726f7"
     "57053697a65cd0952a576616c7565cd099fa865766964656e6365ab65766964656e63652d3230a66b65726e656ca9"
     "6b65726e656c2d3231a3677075a66770752d3232a870726f7669646572ab70726f76696465722d3233a46d6f6465a"
     "76d6f64652d3234a66d6574726963a96d65747269632d3235"},
    {"add_cosignature", 0, 1,
     "940101c082aa636865636b706f696e74ac636865636b706f696e742d31ab636f7369676e6174757265ad636f73696"
     "76e61747572652d32"},
    {"add_cosignature", 0, 0,
     "940101c082aa636865636b706f696e74ac636865636b706f696e742d31ab636f7369676e6174757265ad636f73696"
     "76e61747572652d32"},
    {"add_cosignature", 1, 1, "940101c082a473697a65cd0435a673746f726564c3"},
    {"add_cosignature", 1, 0, "940101c082a473697a65cd0435a673746f726564c2"},
    {"index_proof", 0, 1, "940101c081a36b6579a56b65792d31"},
    {"index_proof", 0, 0, "940101c081a36b6579a56b65792d31"},
    {"index_proof", 1, 1,
     "940101c087a36b6579a56b65792d31a770726573656e74c3a67265636f7264c4087265636f72642d32a570726f6f6"
     "6c40770726f6f662d33aa636865636b706f696e74ac636865636b706f696e742d34a9696e6465784e6f7465ab696e"
     "6465784e6f74652d35a473697a65cd05b6"},
    {"index_proof", 1, 0,
     "940101c086a36b6579a56b65792d31a770726573656e74c2a570726f6f66c40770726f6f662d32aa636865636b706"
     "f696e74ac636865636b706f696e742d33a9696e6465784e6f7465ab696e6465784e6f74652d34a473697a65cd056"
     "9"},
    {"entries", 1, 1,
     "940101c083a57374617274cd0435a7656e747269657392c409656e74726965732d32c409656e74726965732d33aa6"
     "36865636b706f696e74ac636865636b706f696e742d34"},
    {"entries", 1, 0,
     "940101c082a57374617274cd0435a7656e747269657392c409656e74726965732d32c409656e74726965732d33"},
};

static size_t method_index(const char *name)
{
    for (size_t i = 0; i < kix_msg_nmethods; i++)
        if (strcmp(kix_msg_methods[i].name, name) == 0)
            return i;
    return kix_msg_nmethods; /* "entries": the notification */
}

KIX_TEST(every_message_has_its_known_bytes)
{
    struct kix_buf b = KIX_BUF_INIT;
    static char h[1 << 16];

    ASSERT_EQ_INT((int)(4 * kix_msg_nmethods + 2), (int)(sizeof(golden) / sizeof(golden[0])));
    for (size_t g = 0; g < sizeof(golden) / sizeof(golden[0]); g++) {
        size_t i = method_index(golden[g].method);
        const struct kix_msg_table *t = table_of(i, golden[g].dir);
        struct arena a = {.n = 0};
        void *p = take(&a, t->size + 64);
        unsigned seq = 1;

        fill_at(&a, t, p, golden[g].full, &seq);
        /* through kix/messages.h's function, and through the table */
        encode_with(put_of(i, golden[g].dir), p, &b);
        hex(&b, h);
        if (strcmp(h, golden[g].hex) != 0)
            KIX_FAIL_AT("%s %s (%s): the bytes changed:\n  was %s\n  now %s", golden[g].method,
                        golden[g].dir ? "result" : "params", golden[g].full ? "full" : "minimal",
                        golden[g].hex, h);
        arena_free(&a);
    }
    kix_buf_release(&b);
}

/* Decoded with the table and encoded again: the same bytes, every field
 * read back. */
KIX_TEST(every_message_round_trips_through_the_table)
{
    struct kix_buf b = KIX_BUF_INIT, again = KIX_BUF_INIT;
    static uint8_t bytes[1 << 15];
    static char h[1 << 16];
    const size_t max[2] = {1000, 1000};

    for (size_t g = 0; g < sizeof(golden) / sizeof(golden[0]); g++) {
        size_t i = method_index(golden[g].method), n = strlen(golden[g].hex) / 2;
        const struct kix_msg_table *t = table_of(i, golden[g].dir);
        struct kix_proto_msg msg;
        struct kix_proto_writer w;
        struct kix_err err;
        void *out = calloc(1, t->size + 64);

        for (size_t k = 0; k < n; k++)
            sscanf(golden[g].hex + 2 * k, "%2hhx", &bytes[k]);
        ASSERT_EQ_INT(KIX_OK, kix_proto_decode(bytes, n, NULL, &msg, &err));
        if (kix_msg_decode_result(msg.result, t, max, out, &err) != KIX_OK)
            KIX_FAIL_AT("%s: %s", golden[g].method, err.msg);
        kix_buf_reset(&again);
        kix_proto_writer_init(&w, &again);
        kix_proto_begin_response(&w, 1);
        ASSERT_EQ_INT(KIX_OK, kix_msg_encode(&w, t, out));
        ASSERT_EQ_INT(KIX_OK, kix_proto_writer_end(&w, &err));
        hex(&again, h);
        if (strcmp(h, golden[g].hex) != 0)
            KIX_FAIL_AT("%s %s: decoded and encoded again, the bytes differ:\n  was %s\n  now %s",
                        golden[g].method, golden[g].dir ? "result" : "params", golden[g].hex, h);
        if (t->owned != KIX_MSG_NO_AUX)
            kix_msg_free(*(void **)(void *)((char *)out + t->owned));
        free(out);
        kix_proto_msg_release(&msg);
    }
    kix_buf_release(&b);
    kix_buf_release(&again);
}

/* ---- PROTOCOL.md against the table ----------------------------------------------------- */

/* What PROTOCOL.md says a field is: its type's first word. */
static const char *doc_type(const struct kix_msg_field *f)
{
    switch (f->kind) {
    case KIX_MSG_U64:
        return "uint";
    case KIX_MSG_I64:
        return "int";
    case KIX_MSG_BOOL:
        return "bool";
    case KIX_MSG_STR:
    case KIX_MSG_DIGEST:
    case KIX_MSG_KEYID:
        return "str";
    case KIX_MSG_BIN:
    case KIX_MSG_HASH:
        return "bin";
    case KIX_MSG_MAP:
        return "map";
    default:
        return "array";
    }
}

struct doc_field {
    char parent[64], name[64], type[16];
    bool opt;
};

/* "`name?` | type …" or "`name?` (type …": one documented field. */
static void doc_add(struct doc_field *out, size_t *n, const char *prefix, const char *name,
                    size_t len, const char *type)
{
    struct doc_field *d = &out[(*n)++];
    const char *dot;
    size_t k = 0;

    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "%.*s", (int)len, name);
    if ((dot = strstr(d->name, "[i].")) != NULL) {
        snprintf(d->parent, sizeof(d->parent), "%.*s", (int)(dot - d->name), d->name);
        memmove(d->name, dot + 4, strlen(dot + 4) + 1);
    } else if (prefix) {
        snprintf(d->parent, sizeof(d->parent), "%s", prefix);
    }
    len = strlen(d->name);
    if (len && d->name[len - 1] == '?') {
        d->opt = true;
        d->name[len - 1] = '\0';
    }
    while (*type == ' ')
        type++;
    while (type[k] && strchr(" ,)|}`\n", type[k]) == NULL && k + 1 < sizeof(d->type)) {
        d->type[k] = type[k];
        k++;
    }
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '?' || c == '[' || c == ']' || c == '.';
}

/* The fields PROTOCOL.md gives for "Params" or "Result" in one method's
 * section [sec, end): a table after the line, or `name` (type …) inline. */
static size_t doc_fields(const char *sec, const char *end, const char *what, struct doc_field *out,
                         size_t max)
{
    const char *p = sec, *line;
    size_t n = 0;

    for (;;) {
        line = strstr(p, what);
        if (!line || line >= end)
            return 0;
        if (line[-1] == '\n')
            break;
        p = line + 1;
    }
    p = strchr(line, ':');
    if (!p || p >= end)
        return 0;
    p++;
    while (*p == ' ')
        p++;
    if (*p == '\n') { /* a table: rows after the header */
        const char *row = strstr(p, "|---");
        row = row ? strchr(row, '\n') : NULL;
        while (row && row < end && row[1] == '|' && n < max) {
            const char *cell = row + 2, *cell_end = strchr(cell, '|');
            const char *tick = cell, *first = NULL;
            char prefix[64] = "";
            while ((tick = strchr(tick, '`')) != NULL && tick < cell_end) {
                const char *close = strchr(tick + 1, '`');
                if (!first) {
                    const char *dot = strstr(tick, "[i].");
                    if (dot && dot < close)
                        snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - tick - 1), tick + 1);
                    first = tick;
                }
                doc_add(out, &n, prefix[0] ? prefix : NULL, tick + 1, (size_t)(close - tick - 1),
                        cell_end + 1);
                tick = close + 1;
            }
            row = strchr(row + 1, '\n');
        }
        return n;
    }
    /* inline: up to the blank line */
    {
        const char *stop = strstr(p, "\n\n");
        for (const char *t = p; (t = strchr(t, '`')) != NULL && t < stop && n < max;) {
            const char *close = strchr(t + 1, '`');
            size_t len = (size_t)(close - t - 1);
            bool ident = len > 0;
            for (size_t k = 0; k < len; k++)
                ident = ident && is_name_char(t[1 + k]);
            if (ident && (close[1] == ' ' || close[1] == '\n') && close[2] == '(')
                doc_add(out, &n, NULL, t + 1, len, close + 3);
            t = close + 1;
        }
    }
    return n;
}

static bool field_optional(const struct kix_msg_field *f)
{
    return (f->flags & KIX_MSG_OPT) || f->when != KIX_MSG_ALWAYS_THERE;
}

/* Each documented field is in the table as documented, and each
 * top-level field of the table is documented. */
static int check_fields(const char *method, const char *what, const struct kix_msg_table *t,
                        const struct doc_field *doc, size_t n)
{
    int bad = 0;

    for (size_t k = 0; k < n; k++) {
        const struct kix_msg_table *in = t;
        const struct kix_msg_field *f = NULL;
        if (doc[k].parent[0]) {
            in = NULL;
            for (size_t i = 0; i < t->nfields; i++)
                if (strcmp(t->fields[i].name, doc[k].parent) == 0 && t->fields[i].sub)
                    in = t->fields[i].sub;
        }
        for (size_t i = 0; in && i < in->nfields; i++)
            if (strcmp(in->fields[i].name, doc[k].name) == 0 && in->fields[i].kind != KIX_MSG_FLAG)
                f = &in->fields[i];
        if (!f) {
            fprintf(stderr, "%s %s: PROTOCOL.md has %s%s%s, the table has not\n", method, what,
                    doc[k].parent, doc[k].parent[0] ? "[i]." : "", doc[k].name);
            bad = 1;
            continue;
        }
        if (field_optional(f) != doc[k].opt || strcmp(doc_type(f), doc[k].type) != 0) {
            fprintf(stderr, "%s %s: field %s is %s%s in PROTOCOL.md, %s%s in the table\n", method,
                    what, doc[k].name, doc[k].type, doc[k].opt ? " (optional)" : "", doc_type(f),
                    field_optional(f) ? " (optional)" : "");
            bad = 1;
        }
    }
    for (size_t i = 0; i < t->nfields; i++) {
        bool found = t->fields[i].kind == KIX_MSG_FLAG;
        for (size_t k = 0; k < n && !found; k++)
            found = !doc[k].parent[0] && strcmp(doc[k].name, t->fields[i].name) == 0;
        if (!found) {
            fprintf(stderr, "%s %s: the table has %s, PROTOCOL.md has not\n", method, what,
                    t->fields[i].name);
            bad = 1;
        }
    }
    return bad;
}

/* A sub-table of t's fields (a list's elements, a map) whose fields are
 * exactly the names of doc. */
static const struct kix_msg_table *sub_named(const struct kix_msg_table *t,
                                             const struct doc_field *doc, size_t n)
{
    for (size_t i = 0; t && i < t->nfields; i++) {
        const struct kix_msg_table *sub = t->fields[i].sub;
        size_t same = 0;
        if (!sub || sub->nfields != n)
            continue;
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < sub->nfields; j++)
                same += strcmp(sub->fields[j].name, doc[k].name) == 0;
        if (same == n)
            return sub;
    }
    for (size_t i = 0; t && i < t->nfields; i++) { /* and maps within maps */
        const struct kix_msg_table *sub =
            t->fields[i].sub ? sub_named(t->fields[i].sub, doc, n) : NULL;
        if (sub)
            return sub;
    }
    return NULL;
}

/* Every `{name: type, name?: type}` PROTOCOL.md gives in a method's
 * section (the innermost of nested ones) is a sub-table of the method's
 * messages, field for field. */
static int check_braces(const struct kix_msg_method *m, const char *sec, const char *end)
{
    int bad = 0;

    for (const char *p = sec; (p = strstr(p, "`{")) != NULL && p < end; p++) {
        const char *close = strstr(p, "}`");
        if (!close || close > end)
            break;
        for (const char *q = p + 1; q <= close; q++) {
            struct doc_field doc[16];
            const struct kix_msg_table *sub;
            const char *r = q + 1;
            size_t n = 0;
            if (*q != '{')
                continue;
            while (r <= close && *r != '{' && *r != '}')
                r++;
            if (*r != '}')
                continue;
            /* "name?: type words, …" */
            for (const char *e = q + 1; e < r && n < 16;) {
                const char *colon = memchr(e, ':', (size_t)(r - e)), *comma;
                while (*e == ' ' || *e == '\n')
                    e++;
                if (!colon)
                    break;
                doc_add(doc, &n, NULL, e, (size_t)(colon - e), colon + 1);
                comma = memchr(colon, ',', (size_t)(r - colon));
                e = comma ? comma + 1 : r;
            }
            if (n == 0)
                continue;
            sub = sub_named(m->params, doc, n);
            if (!sub)
                sub = sub_named(m->result, doc, n);
            if (!sub) {
                fprintf(stderr, "%s: PROTOCOL.md's {%.*s} is none of its maps in the table\n",
                        m->name, (int)(r - q - 1), q + 1);
                bad = 1;
                continue;
            }
            bad |= check_fields(m->name, sub->name, sub, doc, n);
        }
        p = close;
    }
    return bad;
}

KIX_TEST(protocol_md_documents_the_table)
{
    char *doc = kix_test_read_file("../proto/PROTOCOL.md", NULL);
    static struct doc_field fields[128];
    int bad = 0;

    ASSERT_TRUE(doc != NULL);
    for (size_t i = 0; i < kix_msg_nmethods; i++) {
        const struct kix_msg_method *m = &kix_msg_methods[i];
        char head[80];
        const char *sec, *end;
        size_t n;

        snprintf(head, sizeof(head), " `%s`", m->name);
        sec = strstr(doc, head);
        while (sec && !(sec[-1] == '2' || sec[-1] == '1' || sec[-1] == '0' ||
                        (sec[-1] >= '3' && sec[-1] <= '9')))
            sec = strstr(sec + 1, head);
        if (!sec) {
            fprintf(stderr, "PROTOCOL.md has no section ### 2.N `%s`\n", m->name);
            bad = 1;
            continue;
        }
        end = strstr(sec, "\n### ");
        if (!end)
            end = sec + strlen(sec);
        n = doc_fields(sec, end, "Params", fields, 128);
        bad |= check_fields(m->name, "params", m->params, fields, n);
        n = doc_fields(sec, end, "Result", fields, 128);
        bad |= check_fields(m->name, "result", m->result, fields, n);
        bad |= check_braces(m, sec, end);
    }
    free(doc);
    ASSERT_EQ_INT(0, bad);
}

KIX_TEST_MAIN()
