/* filter.c - see filter.h. */
#include "filter.h"

#include "java_name.h"

#include <stdio.h>
#include <string.h>

int ht_filter_parse(ht_filter *f, const char *text, char *err, size_t errn)
{
    memset(f, 0, sizeof *f);
    if (!text) return 0;
    snprintf(f->text, sizeof f->text, "%s", text);
    snprintf(f->buf, sizeof f->buf, "%s", text);
    char *save = NULL;
    size_t java_at = 0;
    for (char *tok = strtok_r(f->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ' || *tok == '\t')
            tok++;
        char *end = tok + strlen(tok);
        while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        if (!*tok) continue;
        int excl = tok[0] == '!';
        if (excl) tok++;
        int exact = tok[0] == '=';
        if (exact) tok++;
        if (!*tok) {
            snprintf(err, errn, "filter term '%s' needs text after it, e.g. %s",
                     exact ? (excl ? "!=" : "=") : "!", exact ? "=java.util.ArrayList" : "!.io.");
            memset(f, 0, sizeof *f);
            return -1;
        }
        if ((excl ? f->nexclude : f->ninclude) == HT_FILTER_MAX_TERMS) {
            snprintf(err, errn, "at most %d include and %d exclude terms", HT_FILTER_MAX_TERMS,
                     HT_FILTER_MAX_TERMS);
            memset(f, 0, sizeof *f);
            return -1;
        }
        /* "[I" -> "int[]": each '[' becomes "[]", a letter up to "boolean"; the
         * room is 2x the text, which holds every term */
        char *j = f->java + java_at;
        if (ht_java_class_name(tok, j, sizeof f->java - java_at)) {
            tok = j;
            java_at += strlen(j) + 1;
        }
        if (excl) {
            f->exclude_exact[f->nexclude] = (unsigned char)exact;
            f->exclude[f->nexclude++] = tok;
        } else {
            f->include_exact[f->ninclude] = (unsigned char)exact;
            f->include[f->ninclude++] = tok;
        }
    }
    return 0;
}

int ht_filter_active(const ht_filter *f)
{
    return f->ninclude + f->nexclude > 0;
}

static int term_matches(const char *name, const char *term, int exact)
{
    return exact ? strcmp(name, term) == 0 : strstr(name, term) != NULL;
}

int ht_filter_match(const ht_filter *f, const char *name)
{
    for (int i = 0; i < f->nexclude; i++)
        if (term_matches(name, f->exclude[i], f->exclude_exact[i])) return 0;
    if (f->ninclude == 0) return 1;
    for (int i = 0; i < f->ninclude; i++)
        if (term_matches(name, f->include[i], f->include_exact[i])) return 1;
    return 0;
}
