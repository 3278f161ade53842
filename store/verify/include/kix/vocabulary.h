/* kix/vocabulary.h — one vocabulary for what runs are described with:
 * kernels, data types, GPU products and form factors, protocol families.
 *
 * Shared by the Liger importer (tools/liger), `kix new run` and `kix
 * validate`, so that the same kernel, dtype or GPU is spelled one way
 * everywhere (`bf16`, not `bfloat16` here and `bf16` there; the product
 * "NVIDIA A100" with the form factor "SXM4-80GB", not "NVIDIA
 * A100-SXM4-80GB"), and a near miss gets a "did you mean". The lists are
 * documented for publishers in docs/VOCABULARY.md. The log enforces none of
 * it: a new kernel or GPU is welcome; the tools warn on a name they do not
 * know and suggest the nearest one they do.
 *
 * Pure data and string functions: no allocation, no I/O.
 */
#ifndef KIX_VOCABULARY_H
#define KIX_VOCABULARY_H

#include "kix/api.h"

#include <stddef.h>

struct kix_vocab_kernel {
    const char *name;  /* spec.kernel: "rope" */
    const char *title; /* for people: "Rotary position embedding" */
};

/* A GPU as its driver names it (torch.cuda.get_device_name()), and how a
 * record writes it (spec.hardware of an ExecutionEnvironment). */
struct kix_vocab_gpu {
    const char *name;        /* "NVIDIA A100-SXM4-80GB" */
    const char *vendor;      /* "nvidia" */
    const char *product;     /* "NVIDIA A100" */
    const char *form_factor; /* "SXM4-80GB", or NULL */
    const char *arch;        /* "sm_80" */
};

struct kix_vocab_family {
    const char *name;        /* spec.comparability.family: "liger_kernel_bench" */
    const char *description; /* what harness and timer it names */
};

/* The i-th entry (0 ..), NULL past the last. */
KIX_API const struct kix_vocab_kernel *kix_vocab_kernel_at(size_t i);
KIX_API const struct kix_vocab_gpu *kix_vocab_gpu_at(size_t i);
KIX_API const struct kix_vocab_family *kix_vocab_family_at(size_t i);
KIX_API const char *kix_vocab_dtype_at(size_t i); /* "bf16", "fp32", ... */

/* Lookups by exact name; NULL when unknown. kix_vocab_gpu also knows a
 * GPU by its product and form factor together ("NVIDIA A100 SXM4-80GB"). */
KIX_API const struct kix_vocab_kernel *kix_vocab_kernel(const char *name);
KIX_API const struct kix_vocab_gpu *kix_vocab_gpu(const char *name);
KIX_API const struct kix_vocab_family *kix_vocab_family(const char *name);

/* A dtype as the vocabulary writes it: "torch.bfloat16", "bfloat16" and
 * "bf16" are "bf16"; "float32", "float" "fp32"; "half" "fp16"; "double"
 * "fp64". Writes the short name into out (at most cap bytes, cut to fit)
 * and returns 1 when it is one of the vocabulary's, 0 when not (out then
 * holds the name with "torch." dropped and bfloatN/floatN shortened). */
KIX_API int kix_vocab_dtype(const char *in, char *out, size_t cap);

/* Did you mean: the known name nearest to word (an edit distance of at
 * most a third of its length, at least 2, or word a prefix of it), or NULL.
 * names(i) lists the candidates, NULL past the last. */
KIX_API const char *kix_vocab_suggest(const char *word, const char *(*names)(size_t i));
KIX_API const char *kix_vocab_kernel_name(size_t i);
KIX_API const char *kix_vocab_gpu_name(size_t i); /* names and products */
KIX_API const char *kix_vocab_family_name(size_t i);

#endif
