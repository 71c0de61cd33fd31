#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "manifest.h"
#include "vectors.h"

static void to_hex(const unsigned char *md, char hex[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

void oc_sha256_hex(const void *bytes, size_t n, char hex[65])
{
    unsigned char md[32];
    unsigned int len = 0;
    EVP_Digest(bytes, n, md, &len, EVP_sha256(), NULL);
    to_hex(md, hex);
}

/* SHA-256 of a regular file, streamed. */
static oc_status file_sha256(const char *path, char hex[65], oc_diag *d)
{
    oc_status s = oc_check_regular(path, d);
    if (s != OC_OK)
        return s;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return oc_fail(d, OC_ERR_IO, "%s: cannot open", path);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char buf[1 << 16], md[32];
    unsigned int len = 0;
    size_t got;
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    while (ok && (got = fread(buf, 1, sizeof buf, fp)) > 0)
        ok = EVP_DigestUpdate(ctx, buf, got);
    ok = ok && !ferror(fp) && EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    fclose(fp);
    if (!ok)
        return oc_fail(d, OC_ERR_IO, "%s: read error", path);
    to_hex(md, hex);
    return OC_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the lines of every file in <dir>/<family> (sorted by name) to *text. */
static oc_status family_lines(const char *dir, const char *family, char **text, size_t *len,
                              oc_diag *d)
{
    char fdir[4096];
    snprintf(fdir, sizeof fdir, "%s/%s", dir, family);
    DIR *dp = opendir(fdir);
    if (!dp)
        return oc_fail(d, OC_ERR_IO, "%s: cannot open", fdir);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            names = realloc(names, (n + 1) * sizeof *names);
            names[n++] = strdup(e->d_name);
        }
    closedir(dp);
    qsort(names, n, sizeof *names, cmp_str);
    oc_status s = OC_OK;
    for (size_t i = 0; i < n; i++) {
        char path[8192], hex[65];
        snprintf(path, sizeof path, "%s/%s", fdir, names[i]);
        if (s == OC_OK && (s = file_sha256(path, hex, d)) == OC_OK) { /* a sub-directory: refused */
            size_t add = 64 + 2 + strlen(family) + 1 + strlen(names[i]) + 1;
            *text = realloc(*text, *len + add + 1);
            *len += (size_t)snprintf(*text + *len, add + 1, "%s  %s/%s\n", hex, family, names[i]);
        }
        free(names[i]);
    }
    free(names);
    return s;
}

oc_status oc_manifest_text(const char *dir, char **text, oc_diag *d)
{
    char **paths = NULL;
    size_t len = 0;
    *text = calloc(1, 1);
    oc_status s = oc_family_list(dir, &paths, d); /* DIR/<family>/<family>.json */
    for (size_t i = 0; s == OC_OK && paths[i]; i++) {
        const char *json = strrchr(paths[i], '/') + 1;
        char family[256];
        snprintf(family, sizeof family, "%.*s", (int)(strlen(json) - 5), json);
        s = family_lines(dir, family, text, &len, d);
    }
    oc_free_list(paths);
    if (s != OC_OK) {
        free(*text);
        *text = NULL;
    }
    return s;
}
