/* The vocabulary's warnings on a record (kix/vocabulary.h), for kix
 * validate and kix new run: a dtype not written the vocabulary's way, and a
 * kernel, GPU or protocol family that is a near miss of a known one. A name
 * the vocabulary does not know and nothing resembles is not warned about:
 * new kernels and GPUs are welcome. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kix/vocabulary.h"
#include "vocab_check.h"

static void warn(struct kix_schema_violation *out, size_t cap, size_t *n, const char *ptr,
                 const char *fmt, const char *a, const char *b)
{
    if (*n < cap) {
        snprintf(out[*n].pointer, sizeof(out[*n].pointer), "%s", ptr);
        snprintf(out[*n].message, sizeof(out[*n].message), fmt, a, b);
    }
    (*n)++;
}

const char *cli_vocab_near(const char *word, const char *(*names)(size_t i), int known)
{
    return known ? NULL : kix_vocab_suggest(word, names);
}

void cli_vocab_warnings(const json_t *doc, struct kix_schema_violation *out, size_t cap, size_t *n)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const json_t *spec = json_object_get(doc, "spec");
    const char *v, *near;
    char dtype[32];

    *n = 0;
    if (!kind || !json_is_object(spec))
        return;
    if (strcmp(kind, "Workload") == 0) {
        v = json_string_value(json_object_get(spec, "kernel"));
        if (v && (near = cli_vocab_near(v, kix_vocab_kernel_name, kix_vocab_kernel(v) != NULL)))
            warn(out, cap, n, "/spec/kernel",
                 "'%s' is no kernel the vocabulary knows: did you "
                 "mean '%s'? (docs/VOCABULARY.md)",
                 v, near);
        v = json_string_value(json_object_get(spec, "dtype"));
        if (v && kix_vocab_dtype(v, dtype, sizeof(dtype)) && strcmp(dtype, v) != 0)
            warn(out, cap, n, "/spec/dtype",
                 "'%s' is written '%s' in the vocabulary: did you mean it? (docs/VOCABULARY.md)", v,
                 dtype);
        else if (v && !kix_vocab_dtype(v, dtype, sizeof(dtype)) &&
                 (near = kix_vocab_suggest(dtype, kix_vocab_dtype_at)))
            warn(out, cap, n, "/spec/dtype",
                 "'%s' is no dtype the vocabulary knows: did you mean '%s'? (docs/VOCABULARY.md)",
                 v, near);
    } else if (strcmp(kind, "ExecutionEnvironment") == 0) {
        const json_t *hw = json_object_get(spec, "hardware");
        const struct kix_vocab_gpu *g;
        v = json_string_value(json_object_get(hw, "product"));
        g = v ? kix_vocab_gpu(v) : NULL;
        for (size_t i = 0; v && !g && kix_vocab_gpu_at(i); i++)
            if (strcmp(kix_vocab_gpu_at(i)->product, v) == 0)
                return; /* a product of the vocabulary, as it writes it */
        if (g && strcmp(g->name, v) == 0 && g->form_factor)
            warn(out, cap, n, "/spec/hardware/product",
                 "'%s' is written as the product '%s' and a formFactor in the vocabulary "
                 "(docs/VOCABULARY.md)",
                 v, g->product);
        else if (v && !g && (near = kix_vocab_suggest(v, kix_vocab_gpu_name)) &&
                 strcmp(near, v) != 0)
            warn(out, cap, n, "/spec/hardware/product",
                 "'%s' is no GPU the vocabulary knows: did you mean '%s'? (docs/VOCABULARY.md)", v,
                 near);
    } else if (strcmp(kind, "BenchmarkProtocol") == 0) {
        v = json_string_value(json_object_get(json_object_get(spec, "comparability"), "family"));
        if (v && (near = cli_vocab_near(v, kix_vocab_family_name, kix_vocab_family(v) != NULL)))
            warn(out, cap, n, "/spec/comparability/family",
                 "'%s' is no protocol family the vocabulary knows: did you mean '%s'? "
                 "(docs/VOCABULARY.md)",
                 v, near);
    }
}
