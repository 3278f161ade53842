/* The Liger CSV importer's reader and row parser: after the real header,
 * any bytes are refused row by row or build manifests that are canonical
 * JSON (re-canonicalize to themselves). */
#include "fuzz.h"
#include "kix/canon.h"
#include "kix/csv.h"
#include "kix/liger.h"

static const char header[] =
    "kernel_name,kernel_provider,kernel_operation_mode,metric_name,metric_unit,x_name,x_label,"
    "x_value,y_value_50,y_value_20,y_value_80,extra_benchmark_config_str,gpu_name,timestamp,"
    "liger_version\n";

static void check_canonical(const struct kix_buf *b)
{
    struct kix_buf again = KIX_BUF_INIT;
    if (b->len && (kix_canon(b->ptr, b->len, NULL, &again, NULL) != KIX_OK || again.len != b->len ||
                   memcmp(again.ptr, b->ptr, b->len) != 0))
        abort();
    kix_buf_release(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kix_buf text = KIX_BUF_INIT;
    struct kix_csv csv;
    struct kix_csv_record rec;
    struct kix_liger_header h;
    struct kix_liger_run run;

    if (kix_buf_adds(&text, header) || kix_buf_add(&text, data, size))
        abort();
    kix_csv_init(&csv, (const char *)text.ptr, text.len);
    kix_liger_run_init(&run);
    if (kix_csv_next(&csv, &rec, NULL) != 1 || kix_liger_header_parse(&rec, &h, NULL) != KIX_OK)
        abort(); /* the real header always parses */
    for (int i = 0; i < 64; i++) {
        int r = kix_csv_next(&csv, &rec, NULL);
        if (r == 0)
            break;
        if (r < 0)
            continue; /* a bad record: the reader goes on at the next line */
        if (kix_liger_build(NULL, &h, &rec, &run, NULL) == KIX_OK)
            for (int k = 0; k < KIX_LIGER_NOBJECTS; k++)
                check_canonical(&run.canon[k]);
    }
    kix_liger_run_release(&run);
    kix_csv_release(&csv);
    kix_buf_release(&text);
    return 0;
}
