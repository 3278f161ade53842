/* Private and public key files: created exclusively, fsynced, permission-checked. */
#include "kix/note.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "note_impl.h"

#define KEYFILE_MAX 4096

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* fsync of the directory holding path, so the new name survives a crash. */
static int fsync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd, rc = 0;

    if (!slash)
        dir = strdup(".");
    else if (slash == path)
        dir = strdup("/");
    else
        dir = strndup(path, (size_t)(slash - path));
    if (!dir)
        return -1;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    if (fsync(fd) != 0 && errno != EINVAL)
        rc = -1;
    close(fd);
    return rc;
}

/* Creates path exclusively with `mode` and writes data; removes it on failure. */
static int create_file(const char *path, mode_t mode, const char *data, size_t len,
                       const char *what, struct kix_err *err)
{
    int fd, e;

    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
        if (errno == EEXIST)
            return kix_err_set(err, KIX_EEXIST,
                               "%s %s already exists; refusing to overwrite it (move it away or "
                               "choose another path)",
                               what, path);
        return kix_err_set(err, KIX_EIO, "creating %s %s: %s", what, path, strerror(errno));
    }
    /* Exactly `mode`, whatever the umask. */
    if (fchmod(fd, mode) != 0 || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        e = errno;
        close(fd);
        unlink(path);
        return kix_err_set(err, KIX_EIO, "writing %s %s: %s", what, path, strerror(e));
    }
    if (close(fd) != 0) {
        e = errno;
        unlink(path);
        return kix_err_set(err, KIX_EIO, "writing %s %s: %s", what, path, strerror(e));
    }
    if (fsync_parent(path) != 0)
        return kix_err_set(err, KIX_EIO, "syncing the directory of %s: %s", path, strerror(errno));
    return KIX_OK;
}

int kix_keyfile_write(const char *path, const struct kix_signer *s, struct kix_err *err)
{
    char *text;
    size_t n;
    int rc;

    if (sodium_init() < 0)
        return kix_err_set(err, KIX_EIO, "libsodium failed to initialise");
    text = sodium_malloc(KIX__PRIVATE_TEXT_MAX + 2);
    if (!text)
        return kix_err_set(err, KIX_ENOMEM, "out of secure memory writing a private key");
    n = kix__signer_private_text(s, text, KIX__PRIVATE_TEXT_MAX + 1);
    if (n == 0) {
        rc = kix_err_set(err, KIX_EINVAL, "cannot encode the private key");
    } else {
        text[n++] = '\n';
        rc = create_file(path, 0600, text, n, "private key file", err);
    }
    sodium_free(text);
    return rc;
}

int kix_pubfile_write(const char *path, const struct kix_verifier *v, struct kix_err *err)
{
    struct kix_buf b = KIX_BUF_INIT;
    int rc;

    if (kix_verifier_format(v, &b) || kix_buf_addc(&b, '\n')) {
        kix_buf_release(&b);
        return kix_err_set(err, KIX_ENOMEM, "out of memory writing a public key");
    }
    rc = create_file(path, 0644, (const char *)b.ptr, b.len, "public key file", err);
    kix_buf_release(&b);
    return rc;
}

/* Reads at most KEYFILE_MAX bytes of an open regular file into dst. */
static int read_small(int fd, const char *path, const char *what, char *dst, size_t *len,
                      struct kix_err *err)
{
    size_t n = 0;

    for (;;) {
        ssize_t r = read(fd, dst + n, KEYFILE_MAX + 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return kix_err_set(err, KIX_EIO, "reading %s %s: %s", what, path, strerror(errno));
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > KEYFILE_MAX)
            return kix_err_set(err, KIX_EINVAL, "%s %s is over %d bytes; is it a key file?", what,
                               path, KEYFILE_MAX);
    }
    *len = n;
    return KIX_OK;
}

static int open_key(const char *path, const char *what, struct stat *st, struct kix_err *err)
{
    /* O_NONBLOCK: a FIFO planted at the path must not hang us before the
     * regular-file check below (it changes nothing for regular files) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

    if (fd < 0) {
        if (errno == ENOENT)
            return kix_err_set(err, KIX_ENOTFOUND, "%s %s not found", what, path);
        return kix_err_set(err, KIX_EIO, "opening %s %s: %s", what, path, strerror(errno));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return kix_err_set(err, KIX_EIO, "checking %s %s: %s", what, path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return kix_err_set(err, KIX_EINVAL, "%s %s is not a regular file", what, path);
    }
    return fd;
}

int kix_keyfile_read(const char *path, struct kix_signer **out, struct kix_err *err)
{
    struct kix_verifier pub;
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    int fd, rc;

    if (sodium_init() < 0)
        return kix_err_set(err, KIX_EIO, "libsodium failed to initialise");
    fd = open_key(path, "private key file", &st, err);
    if (fd < 0)
        return fd;
    text = sodium_malloc(KEYFILE_MAX + 1);
    if (!text) {
        rc = kix_err_set(err, KIX_ENOMEM, "out of secure memory reading a private key");
        goto out;
    }
    rc = read_small(fd, path, "private key file", text, &len, err);
    if (rc)
        goto out;
    /* a .pub given for its .key: say so before any advice on the mode */
    if (kix_verifier_parse(text, len && text[len - 1] == '\n' ? len - 1 : len, &pub, NULL) ==
        KIX_OK) {
        rc = kix_err_set(err, KIX_EINVAL,
                         "%s is a verifier (public) key, not a signing key: give the private "
                         "key (PRIVATE+KEY+%s+...), the PREFIX.key that kix keygen wrote beside "
                         "PREFIX.pub",
                         path, pub.name);
        goto out;
    }
    if (st.st_mode & 077) {
        rc = kix_err_set(err, KIX_EINVAL,
                         "private key file %s is accessible by group or others (mode %04o); "
                         "run chmod 600 %s",
                         path, (unsigned)(st.st_mode & 07777), path);
        goto out;
    }
    rc = kix_signer_parse(text, len, out, err);
    if (rc)
        kix_err_wrap(err, "private key file %s", path);
out:
    if (text) {
        sodium_memzero(text, KEYFILE_MAX + 1);
        sodium_free(text);
    }
    close(fd);
    return rc;
}

int kix_pubfile_read(const char *path, struct kix_verifier *out, struct kix_err *err)
{
    char text[KEYFILE_MAX + 1];
    struct stat st;
    size_t len = 0;
    int fd, rc;

    fd = open_key(path, "public key file", &st, err);
    if (fd < 0)
        return fd;
    rc = read_small(fd, path, "public key file", text, &len, err);
    close(fd);
    if (rc)
        return rc;
    if (len > 0 && text[len - 1] == '\n')
        len--;
    rc = kix_verifier_parse(text, len, out, err);
    if (rc)
        kix_err_wrap(err, "public key file %s", path);
    return rc;
}
