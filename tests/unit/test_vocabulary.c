/* The shared vocabulary (kix/vocabulary.h): dtype aliases are written one
 * way, a GPU is known by its driver name or product and form factor, a near
 * miss gets a suggestion and a far one none, and docs/VOCABULARY.md lists
 * every entry (so the publishers' page cannot drift from the table). */
#include <string.h>

#include "harness.h"
#include "kix/vocabulary.h"

KIX_TEST(dtypes_one_spelling)
{
    char out[32];
    ASSERT_EQ_INT(1, kix_vocab_dtype("torch.bfloat16", out, sizeof(out)));
    ASSERT_EQ_STR("bf16", out);
    ASSERT_EQ_INT(1, kix_vocab_dtype("bfloat16", out, sizeof(out)));
    ASSERT_EQ_STR("bf16", out);
    ASSERT_EQ_INT(1, kix_vocab_dtype("bf16", out, sizeof(out)));
    ASSERT_EQ_STR("bf16", out);
    ASSERT_EQ_INT(1, kix_vocab_dtype("torch.float32", out, sizeof(out)));
    ASSERT_EQ_STR("fp32", out);
    ASSERT_EQ_INT(1, kix_vocab_dtype("half", out, sizeof(out)));
    ASSERT_EQ_STR("fp16", out);
    ASSERT_EQ_INT(0, kix_vocab_dtype("bfloat61", out, sizeof(out)));
    ASSERT_EQ_STR("bf61", out);
    ASSERT_EQ_STR("bf16", kix_vocab_suggest(out, kix_vocab_dtype_at));
}

KIX_TEST(gpus_by_name_and_product)
{
    const struct kix_vocab_gpu *g = kix_vocab_gpu("NVIDIA A100-SXM4-80GB");
    ASSERT_TRUE(g != NULL);
    ASSERT_EQ_STR("NVIDIA A100", g->product);
    ASSERT_EQ_STR("SXM4-80GB", g->form_factor);
    ASSERT_TRUE(kix_vocab_gpu("NVIDIA A100 SXM4-80GB") == g);
    ASSERT_TRUE(kix_vocab_gpu("NVIDIA A100") == NULL); /* a product, two form factors in time */
    ASSERT_EQ_STR("NVIDIA A100-SXM4-80GB",
                  kix_vocab_suggest("NVIDIA A100-SXM4-80G", kix_vocab_gpu_name));
}

KIX_TEST(did_you_mean)
{
    ASSERT_EQ_STR("rope", kix_vocab_suggest("ropee", kix_vocab_kernel_name));
    ASSERT_EQ_STR("rms_norm", kix_vocab_suggest("rmsnorm", kix_vocab_kernel_name));
    ASSERT_EQ_STR("liger_kernel_bench", kix_vocab_suggest("liger", kix_vocab_family_name));
    ASSERT_TRUE(kix_vocab_suggest("flash_attention_9", kix_vocab_kernel_name) == NULL);
    ASSERT_TRUE(kix_vocab_suggest("rope", kix_vocab_kernel_name) == NULL); /* itself */
}

KIX_TEST(publishers_page_lists_everything)
{
    char *doc = kix_test_read_file("../docs/VOCABULARY.md", NULL);
    char cell[160];

    ASSERT_TRUE(doc != NULL);
    for (size_t i = 0; kix_vocab_kernel_at(i); i++) {
        snprintf(cell, sizeof(cell), "| `%s` | %s |", kix_vocab_kernel_at(i)->name,
                 kix_vocab_kernel_at(i)->title);
        ASSERT_CONTAINS(doc, cell);
    }
    for (size_t i = 0; kix_vocab_gpu_at(i); i++) {
        snprintf(cell, sizeof(cell), "| %s | `%s` | %s |", kix_vocab_gpu_at(i)->name,
                 kix_vocab_gpu_at(i)->vendor, kix_vocab_gpu_at(i)->product);
        ASSERT_CONTAINS(doc, cell);
    }
    for (size_t i = 0; kix_vocab_dtype_at(i); i++) {
        snprintf(cell, sizeof(cell), "| `%s` |", kix_vocab_dtype_at(i));
        ASSERT_CONTAINS(doc, cell);
    }
    for (size_t i = 0; kix_vocab_family_at(i); i++) {
        snprintf(cell, sizeof(cell), "| `%s` | %s |", kix_vocab_family_at(i)->name,
                 kix_vocab_family_at(i)->description);
        ASSERT_CONTAINS(doc, cell);
    }
    free(doc);
}

KIX_TEST_MAIN()
