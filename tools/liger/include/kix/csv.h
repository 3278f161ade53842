/* kix/csv.h — an RFC 4180 CSV record reader over bytes in memory.
 *
 * Records end in CRLF or LF (the final record may lack one). A field is
 * either unquoted (no '"', CR or LF inside) or wrapped in double quotes,
 * where '""' is one quote and commas, CR and LF are data. A leading UTF-8
 * byte order mark is skipped. Nothing is trimmed or converted: field bytes
 * are handed back exactly as they stood (quotes undone).
 *
 * Errors are KIX_EINVAL with a message that starts "line N: " (N is the
 * 1-based line of the file where the bad byte is) and says what is wrong:
 * a quote inside an unquoted field, a byte after a closing quote, a bare CR,
 * a quoted field still open at the end of the input; KIX_ELIMIT for a record
 * over KIX_CSV_MAX_FIELDS fields or KIX_CSV_MAX_RECORD bytes. After an error
 * the reader resumes at the line after the bad byte, so a caller can report
 * and go on (an unterminated quote ends the input).
 *
 * Memory: the reader borrows `data` (keep it alive and unchanged) and owns
 * the storage of the current record; the record's fields are NUL-terminated
 * and valid until the next kix_csv_next or kix_csv_release.
 */
#ifndef KIX_CSV_H
#define KIX_CSV_H

#include <stddef.h>

#include "kix/buf.h"
#include "kix/error.h"

#define KIX_CSV_MAX_FIELDS 1024
#define KIX_CSV_MAX_RECORD (1024u * 1024u)

struct kix_csv_record {
    size_t line;         /* 1-based line where the record starts */
    size_t nfields;      /* at least 1 */
    const char **fields; /* nfields NUL-terminated fields */
    const size_t *lens;  /* their lengths (a field may hold a NUL byte) */
};

struct kix_csv {
    /* private */
    const char *start, *p, *end;
    size_t line;
    struct kix_buf cells;
    size_t *offs, *lens, cap;
    const char **fields;
};

void kix_csv_init(struct kix_csv *c, const char *data, size_t len);
void kix_csv_release(struct kix_csv *c);

/* Reads the next record into *rec. Returns 1 for a record, 0 at the end of
 * the input (a final empty line is no record), or a negative KIX_E* code;
 * after an error rec->line still says where the bad record started. */
int kix_csv_next(struct kix_csv *c, struct kix_csv_record *rec, struct kix_err *err);

/* The 1-based line the next record would start on. */
size_t kix_csv_line(const struct kix_csv *c);
/* Bytes of the input consumed so far (for progress). */
size_t kix_csv_offset(const struct kix_csv *c);

#endif
