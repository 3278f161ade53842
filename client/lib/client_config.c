/* The client's config file (kix/config.h). */
#include "kix/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix/vocabulary.h"

static const char *const config_keys[] = {"server",        "log-key",        "witness",
                                          "min-witnesses", "witness-policy", NULL};
static const char *const policy_keys[] = {"witness", "quorum", NULL};

static const char *config_key(size_t i)
{
    return i < 5 ? config_keys[i] : NULL;
}

static const char *policy_key(size_t i)
{
    return i < 2 ? policy_keys[i] : NULL;
}

static char *trim(char *s)
{
    char *e;
    s += strspn(s, " \t");
    e = s + strlen(s);
    while (e > s && strchr(" \t\r\n", e[-1]))
        *--e = '\0';
    return s;
}

static void warn_unknown(kix_config_warn_fn warn, void *ctx, const char *path, int line,
                         const char *key, const char *(*names)(size_t))
{
    char msg[4400];
    const char *near = kix_vocab_suggest(key, names);

    if (!warn)
        return;
    snprintf(msg, sizeof(msg), "%s:%d: unknown setting '%.64s'%s%s%s; ignored", path, line, key,
             near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    warn(ctx, msg);
}

static int put(char *out, size_t cap, const char *v, const char *path, int line, const char *key,
               struct kix_err *err)
{
    if (strlen(v) >= cap)
        return kix_err_set(err, KIX_EUSAGE, "%s:%d: %s is too long", path, line, key);
    snprintf(out, cap, "%s", v);
    return KIX_OK;
}

static int add_witness(struct kix_config *cfg, const char *v, const char *path, int line,
                       struct kix_err *err)
{
    if (cfg->nwitness == KIX_CONFIG_WITNESSES)
        return kix_err_set(err, KIX_EUSAGE, "%s:%d: at most %d witnesses", path, line,
                           KIX_CONFIG_WITNESSES);
    return put(cfg->witness[cfg->nwitness++], sizeof(cfg->witness[0]), v, path, line, "witness",
               err);
}

static int set_count(struct kix_config *cfg, const char *v, const char *path, int line,
                     const char *key, struct kix_err *err)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);

    if (!*v || *end || *v == '-' || n > KIX_CONFIG_WITNESSES)
        return kix_err_set(err, KIX_EUSAGE, "%s:%d: %s must be a number of witnesses, not '%s'",
                           path, line, key, v);
    snprintf(cfg->min_witnesses, sizeof(cfg->min_witnesses), "%lu", n);
    return KIX_OK;
}

/* "witness KEY" and "quorum N" lines. */
static int load_policy(struct kix_config *cfg, const char *file, kix_config_warn_fn warn, void *ctx,
                       struct kix_err *err)
{
    char path[4096], line[4096];
    const char *slash = strrchr(cfg->path, '/');
    FILE *f;
    int lineno = 0, rc = KIX_OK;

    if (file[0] == '/' || !slash)
        snprintf(path, sizeof(path), "%s", file);
    else
        snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - cfg->path), cfg->path, file);
    f = fopen(path, "r");
    if (!f)
        return kix_err_set(err, KIX_EUSAGE, "%s: witness-policy %s cannot be read", cfg->path,
                           path);
    while (rc == KIX_OK && fgets(line, sizeof(line), f)) {
        char *key = trim(line), *v;
        lineno++;
        if (!*key || *key == '#')
            continue;
        v = key + strcspn(key, " \t");
        if (*v)
            *v++ = '\0';
        v = trim(v);
        if (strcmp(key, "witness") == 0)
            rc = add_witness(cfg, v, path, lineno, err);
        else if (strcmp(key, "quorum") == 0)
            rc = set_count(cfg, v, path, lineno, "quorum", err);
        else
            warn_unknown(warn, ctx, path, lineno, key, policy_key);
    }
    fclose(f);
    return rc;
}

int kix_config_load(struct kix_config *cfg, kix_config_warn_fn warn, void *ctx, struct kix_err *err)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char line[4096];
    FILE *f;
    int lineno = 0, rc = KIX_OK;

    memset(cfg, 0, sizeof(*cfg));
    if (xdg && *xdg)
        snprintf(cfg->path, sizeof(cfg->path), "%s/kix/config", xdg);
    else if (home)
        snprintf(cfg->path, sizeof(cfg->path), "%s/.config/kix/config", home);
    f = cfg->path[0] ? fopen(cfg->path, "r") : NULL;
    if (!f) {
        cfg->path[0] = '\0';
        return KIX_OK;
    }
    while (rc == KIX_OK && fgets(line, sizeof(line), f)) {
        char *key = trim(line), *eq, *v;
        lineno++;
        if (!*key || *key == '#')
            continue;
        eq = strchr(key, '=');
        if (!eq) {
            warn_unknown(warn, ctx, cfg->path, lineno, key, config_key);
            continue;
        }
        *eq = '\0';
        v = trim(eq + 1);
        key = trim(key);
        if (strcmp(key, "server") == 0)
            rc = put(cfg->server, sizeof(cfg->server), v, cfg->path, lineno, key, err);
        else if (strcmp(key, "log-key") == 0)
            rc = put(cfg->log_key, sizeof(cfg->log_key), v, cfg->path, lineno, key, err);
        else if (strcmp(key, "witness") == 0)
            rc = add_witness(cfg, v, cfg->path, lineno, err);
        else if (strcmp(key, "min-witnesses") == 0)
            rc = set_count(cfg, v, cfg->path, lineno, key, err);
        else if (strcmp(key, "witness-policy") == 0)
            rc = load_policy(cfg, v, warn, ctx, err);
        else
            warn_unknown(warn, ctx, cfg->path, lineno, key, config_key);
    }
    fclose(f);
    return rc;
}
