/*
 * filter.h - the one filter syntax of every list heaptop filters (classes,
 * frames, heap lists, the console, the chooser): "java., !.io., demo.".
 *
 * Owns: parsing a comma-separated list of terms (spaces around terms ignored,
 * a leading '!' makes a term exclude) and matching a name against it. Matching
 * is by substring and case-sensitive. A name passes when it contains at least
 * one include term (or there are none) and no exclude term. A term written
 * "=name" matches that whole name only ("=java.util.ArrayList" passes
 * java.util.ArrayList, not java.util.ArrayList$Itr). Class names are
 * Java's everywhere ("int[]", "java.lang.Object[]"); a term written as the
 * JVM's descriptor ("[I", "[Ljava.lang.Object;", as jcmd and HPROF spell
 * them) is turned into that name (java_name.h), so either spelling finds the
 * class. Pure: no I/O.
 */
#ifndef HEAPTOP_FILTER_H
#define HEAPTOP_FILTER_H

#include <stddef.h>

#define HT_FILTER_MAX_TERMS 32
#define HT_FILTER_MAX_TEXT  256

typedef struct ht_filter {
    char text[HT_FILTER_MAX_TEXT];          /* as the user typed it */
    char buf[HT_FILTER_MAX_TEXT];           /* terms, NUL-separated */
    char java[2 * HT_FILTER_MAX_TEXT + 16]; /* terms given as descriptors, as Java names */
    const char *include[HT_FILTER_MAX_TERMS];
    const char *exclude[HT_FILTER_MAX_TERMS];
    int ninclude, nexclude;
    unsigned char include_exact[HT_FILTER_MAX_TERMS]; /* "=name": the whole name */
    unsigned char exclude_exact[HT_FILTER_MAX_TERMS];
} ht_filter;

/* Parse text (NULL or "" = no filter). 0, or -1 with a message when a term is
 * empty after '!' or there are too many terms (the filter is then cleared). */
int ht_filter_parse(ht_filter *f, const char *text, char *err, size_t errn);
int ht_filter_active(const ht_filter *f);
int ht_filter_match(const ht_filter *f, const char *name);

#endif
