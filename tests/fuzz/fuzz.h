/* tests/fuzz/fuzz.h — what the fuzz targets share (see README.md).
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput, the libFuzzer entry
 * point: it must accept any bytes, be deterministic, free everything it
 * allocates, and abort() when a property it checks does not hold. The same
 * file links either with libFuzzer (KIX_FUZZ builds) or with replay.c (the
 * CTest entries fuzz.replay.<name>).
 *
 * The fixed keys: FUZZ_LOG_VKEY is the log the checked-in receipts and
 * checkpoints came from (`kixd init --origin fuzz.test/log`; its private
 * key was discarded), FUZZ_WITNESS_VKEY the witness that cosigned one of
 * them (Ed25519 seed 32 bytes of 0x57).
 */
#ifndef KIX_FUZZ_H
#define KIX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kix/note.h"

#define FUZZ_LOG_VKEY     "fuzz.test/log+954aa42d+AY3hK9QB9EXhmVqvChJK49kGNr/+bKq3cQ3pSn/3pKua"
#define FUZZ_WITNESS_VKEY "fuzz.test/witness+47701960+BMhAafoiFsbtwdUsqDqhHCZ91UQK+lJgkMpD69DKhqnP"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parses a verifier key the target relies on; a bad constant is a bug. */
static inline struct kix_verifier fuzz_verifier(const char *text)
{
    struct kix_verifier v;
    if (kix_verifier_parse(text, strlen(text), &v, NULL) != KIX_OK)
        abort();
    return v;
}

#endif
