/* The vocabulary of run descriptions (kix/vocabulary.h). */
#include "kix/vocabulary.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Liger-Kernel's kernels (kernel_name in its benchmark CSV), and titles. */
static const struct kix_vocab_kernel kernels[] = {
    {"cross_entropy", "Cross entropy"},
    {"distill_cosine_loss", "Distillation cosine loss"},
    {"distill_jsd_loss", "Distillation JSD loss"},
    {"embedding", "Embedding"},
    {"fused_add_rms_norm", "Fused add + RMSNorm"},
    {"fused_linear_cpo_loss", "Fused linear CPO loss"},
    {"fused_linear_cross_entropy", "Fused linear cross entropy"},
    {"fused_linear_grpo_loss_sequence", "Fused linear GRPO loss (sequence level)"},
    {"fused_linear_grpo_loss_token", "Fused linear GRPO loss (token level)"},
    {"fused_linear_jsd", "Fused linear JSD"},
    {"fused_linear_orpo_loss", "Fused linear ORPO loss"},
    {"fused_linear_simpo_loss", "Fused linear SimPO loss"},
    {"fused_moe", "Fused mixture of experts"},
    {"fused_neighborhood_attention", "Fused neighborhood attention"},
    {"geglu", "GeGLU MLP"},
    {"group_norm", "Group normalization"},
    {"jsd", "Jensen-Shannon divergence"},
    {"kl_div", "KL divergence"},
    {"kto_loss", "KTO loss"},
    {"layer_norm", "Layer normalization"},
    {"llama4_rope", "Llama 4 rotary position embedding"},
    {"megatron_cross_entropy", "Megatron cross entropy"},
    {"megatron_rms_norm", "Megatron RMSNorm"},
    {"megatron_swiglu", "Megatron SwiGLU"},
    {"multi_token_attention", "Multi-token attention"},
    {"relu_squared", "Squared ReLU"},
    {"rms_norm", "RMSNorm"},
    {"rope", "Rotary position embedding"},
    {"softmax", "Softmax"},
    {"sparse_multi_token_attention", "Sparse multi-token attention"},
    {"sparsemax", "Sparsemax"},
    {"swiglu", "SwiGLU MLP"},
    {"tiled_geglu", "GeGLU MLP (tiled benchmark)"},
    {"tiled_swiglu", "SwiGLU MLP (tiled benchmark)"},
    {"tvd", "Total variation distance"},
};

/* torch.cuda.get_device_name() strings seen in Liger's CSV. */
static const struct kix_vocab_gpu gpus[] = {
    {"NVIDIA A100-SXM4-80GB", "nvidia", "NVIDIA A100", "SXM4-80GB", "sm_80"},
    {"NVIDIA H100 80GB HBM3", "nvidia", "NVIDIA H100", "SXM5-80GB", "sm_90"},
    {"NVIDIA H100 PCIe", "nvidia", "NVIDIA H100", "PCIe", "sm_90"},
    {"NVIDIA GeForce RTX 3090", "nvidia", "NVIDIA GeForce RTX 3090", NULL, "sm_86"},
    {"NVIDIA GeForce RTX 4090", "nvidia", "NVIDIA GeForce RTX 4090", NULL, "sm_89"},
    {"NVIDIA B200", "nvidia", "NVIDIA B200", NULL, "sm_100"},
};

static const struct kix_vocab_family families[] = {
    {"liger_kernel_bench",
     "Liger-Kernel's benchmark scripts: triton.testing.do_bench, CUDA events, median with "
     "p20/p80"},
};

static const char *const dtypes[] = {"fp64",     "fp32",     "tf32",  "fp16",  "bf16",
                                     "fp8_e4m3", "fp8_e5m2", "int64", "int32", "int16",
                                     "int8",     "uint8",    "int4",  "bool"};

static const struct {
    const char *from, *to;
} dtype_aliases[] = {
    {"float", "fp32"},           {"half", "fp16"},           {"double", "fp64"},
    {"long", "int64"},           {"fp8_e4m3fn", "fp8_e4m3"}, {"float8_e4m3fn", "fp8_e4m3"},
    {"float8_e5m2", "fp8_e5m2"},
};

const struct kix_vocab_kernel *kix_vocab_kernel_at(size_t i)
{
    return i < COUNT(kernels) ? &kernels[i] : NULL;
}

const struct kix_vocab_gpu *kix_vocab_gpu_at(size_t i)
{
    return i < COUNT(gpus) ? &gpus[i] : NULL;
}

const struct kix_vocab_family *kix_vocab_family_at(size_t i)
{
    return i < COUNT(families) ? &families[i] : NULL;
}

const char *kix_vocab_dtype_at(size_t i)
{
    return i < COUNT(dtypes) ? dtypes[i] : NULL;
}

const struct kix_vocab_kernel *kix_vocab_kernel(const char *name)
{
    for (size_t i = 0; name && i < COUNT(kernels); i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

const struct kix_vocab_gpu *kix_vocab_gpu(const char *name)
{
    for (size_t i = 0; name && i < COUNT(gpus); i++) {
        size_t n = strlen(gpus[i].product);
        if (strcmp(gpus[i].name, name) == 0)
            return &gpus[i];
        if (gpus[i].form_factor && strncmp(name, gpus[i].product, n) == 0 && name[n] == ' ' &&
            strcmp(name + n + 1, gpus[i].form_factor) == 0)
            return &gpus[i];
    }
    return NULL;
}

const struct kix_vocab_family *kix_vocab_family(const char *name)
{
    for (size_t i = 0; name && i < COUNT(families); i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}

int kix_vocab_dtype(const char *in, char *out, size_t cap)
{
    const char *t = in;

    if (strncmp(t, "torch.", 6) == 0)
        t += 6;
    for (size_t i = 0; i < COUNT(dtype_aliases); i++)
        if (strcmp(t, dtype_aliases[i].from) == 0)
            t = dtype_aliases[i].to;
    if (strncmp(t, "bfloat", 6) == 0)
        snprintf(out, cap, "bf%s", t + 6);
    else if (strncmp(t, "float", 5) == 0)
        snprintf(out, cap, "fp%s", t + 5);
    else
        snprintf(out, cap, "%s", t);
    for (size_t i = 0; i < COUNT(dtypes); i++)
        if (strcmp(out, dtypes[i]) == 0)
            return 1;
    return 0;
}

const char *kix_vocab_kernel_name(size_t i)
{
    return i < COUNT(kernels) ? kernels[i].name : NULL;
}

const char *kix_vocab_gpu_name(size_t i)
{
    return i < COUNT(gpus)       ? gpus[i].name
           : i < 2 * COUNT(gpus) ? gpus[i - COUNT(gpus)].product
                                 : NULL;
}

const char *kix_vocab_family_name(size_t i)
{
    return i < COUNT(families) ? families[i].name : NULL;
}

/* Levenshtein distance, case-insensitive, of strings up to 63 bytes. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64], prev, tmp;

    if (la > 63 || lb > 63)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            char x = a[i - 1], y = b[j - 1];
            size_t cost = (x | 0x20) == (y | 0x20) ? 0 : 1, best = prev + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            tmp = row[j];
            row[j] = best;
            prev = tmp;
        }
    }
    return row[lb];
}

const char *kix_vocab_suggest(const char *word, const char *(*names)(size_t i))
{
    const char *best = NULL, *name;
    size_t best_d = (size_t)-1, limit = strlen(word) / 3, wl = strlen(word);

    if (limit < 2)
        limit = 2;
    for (size_t i = 0; (name = names(i)) != NULL; i++) {
        size_t d = distance(word, name);
        if (wl >= 3 && strncmp(name, word, wl) == 0 && strlen(name) > wl)
            d = 1; /* a prefix: "liger" for "liger_kernel_bench" */
        if (d && d <= limit && d < best_d) {
            best = name;
            best_d = d;
        }
    }
    return best;
}
