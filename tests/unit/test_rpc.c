/* kix/rpc.h errors without a struct kix_err: the code returned is the
 * error's own (KIX_ELIMIT, KIX_EPROTO), not the KIX_EINVAL kix_err_wrap
 * answers for a NULL err. A real Unix socket; the "server" is this test
 * writing bytes on the accepted end. */
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "harness.h"
#include "kix/file.h"
#include "kix/rpc.h"

struct listener {
    char dir[64], addr[128];
    int fd;
};

static void listen_unix(struct listener *l)
{
    struct sockaddr_un sa;

    snprintf(l->dir, sizeof(l->dir), "/tmp/kix-test-rpc-XXXXXX");
    if (!mkdtemp(l->dir))
        abort();
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", l->dir);
    snprintf(l->addr, sizeof(l->addr), "unix://%s", sa.sun_path);
    l->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(l->fd, 4) != 0)
        abort();
}

static void close_listener(struct listener *l)
{
    close(l->fd);
    if (kix_dir_remove_tree(l->dir, NULL) != KIX_OK)
        fprintf(stderr, "could not remove %s\n", l->dir);
}

KIX_TEST(a_request_over_the_limit_is_elimit_without_err)
{
    struct listener l;
    struct kix_rpc_opts o = {2000, 16};
    struct kix_rpc *c = NULL;

    listen_unix(&l);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_connect(l.addr, &o, &c, NULL));
    ASSERT_EQ_INT(KIX_ELIMIT,
                  kix_rpc_send(c, "a_method_name_over_sixteen_bytes", NULL, NULL, NULL, NULL));
    kix_rpc_close(c);
    close_listener(&l);
}

KIX_TEST(a_bad_message_is_eproto_without_err)
{
    static const unsigned char garbage[] = {0xc1, 0xc1, 0xc1, 0xc1};
    struct listener l;
    struct kix_rpc_opts o = {2000, 0};
    struct kix_rpc *c = NULL;
    struct kix_proto_msg m;
    int peer;

    listen_unix(&l);
    ASSERT_EQ_INT(KIX_OK, kix_rpc_connect(l.addr, &o, &c, NULL));
    peer = accept(l.fd, NULL, NULL);
    ASSERT_TRUE(peer >= 0);
    ASSERT_TRUE(write(peer, garbage, sizeof(garbage)) == (ssize_t)sizeof(garbage));
    ASSERT_EQ_INT(KIX_EPROTO, kix_rpc_recv(c, &m, NULL));
    close(peer);
    kix_rpc_close(c);
    close_listener(&l);
}

KIX_TEST_MAIN()
