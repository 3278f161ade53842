/* kix-legacy-log DIR: a store as an older origin left it (issue 42 point
 * 2), for the shell tests: runs logged with the log's own rules only,
 * before the run-id grammar and its suffix rule (as a replayed log holds
 * them), then opened with today's index, which rebuilds its tables from
 * every entry. Its runs: "v"; "v.json" and "v.html", which would name v's
 * view and page; "sha256:<v's manifest digest>", which would shadow v's
 * digest; then "after", published under today's rules. Prints the log's
 * verifier key, v's manifest digest and the manifest digest of the run
 * logged as "v.json", a line each. Uses tests/fixture.h's manifests. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"

int main(int argc, char **argv)
{
    struct fixture f;
    struct kix_append_result res;
    struct kix_err err = {0};
    struct kix_buf vkey = KIX_BUF_INIT;
    char manifest[512], victim[KIX_DIGEST_TEXT_LEN + 1], dotjson[KIX_DIGEST_TEXT_LEN + 1];

    (void)kix_test_cases;
    (void)kix_test_ncases;
    (void)kix_test_failed;
    if (argc != 2) {
        fprintf(stderr, "usage: kix-legacy-log DIR\n");
        return 2;
    }
    run_manifest(manifest, sizeof(manifest), 3);
    digest_text_of_json(manifest, victim);
    run_manifest(manifest, sizeof(manifest), 4);
    digest_text_of_json(manifest, dotjson);
    setup_keys(&f);
    rmdir(f.dir);
    free(f.dir);
    f.dir = strdup(argv[1]);
    if (kix_log_create(f.dir, ORIGIN, kix_signer_public_key(f.admin), NULL, &vkey, &err) ||
        kix_log_open(f.dir, NULL, &f.log, &err) ||
        add_key(&f, f.admin, f.publisher, KIX_ROLE_PUBLISH, 0) ||
        publish(&f, f.publisher, "v", 3, &res, &err) ||
        publish(&f, f.publisher, "v.json", 4, &res, &err) ||
        publish(&f, f.publisher, "v.html", 5, &res, &err) ||
        publish(&f, f.publisher, victim, 6, &res, &err)) {
        fprintf(stderr, "kix-legacy-log: %s\n", err.msg);
        return 1;
    }
    kix_log_close(f.log);
    as_written_by_an_older_index(f.dir);
    if (open_converting(f.dir, &f.log, &err) || publish(&f, f.publisher, "after", 7, &res, &err)) {
        fprintf(stderr, "kix-legacy-log: %s\n", err.msg);
        return 1;
    }
    printf("%.*s\n%s\n%s\n", (int)vkey.len, (const char *)vkey.ptr, victim, dotjson);
    kix_buf_release(&vkey);
    kix_log_close(f.log);
    kix_signer_free(f.admin);
    kix_signer_free(f.publisher);
    kix_signer_free(f.attester);
    kix_signer_free(f.rerunner);
    kix_signer_free(f.stranger);
    free(f.dir);
    return 0;
}
