/*
 * hidden_names.h - stable names for hidden classes (lambdas, method-handle
 * forms, proxies) within a run.
 *
 * Owns: the name shown for each hidden class the agent has named. A hidden
 * class's Java name carries an address and, for a lambda, a counter that
 * change from run to run (ht_hidden_class_base in names.h), so the same site
 * would get another name in every run and two runs' CSVs would not line up.
 * The first hidden class of a base shows as the base ("pkg.Foo$$Lambda"), the
 * second distinct one as "pkg.Foo$$Lambda#2", and so on, in the order the
 * agent first names them: two lambdas of one class stay apart within a run.
 * Collector thread only (symbols.c); pure C, unit-tested.
 */
#ifndef HEAPTOP_HIDDEN_NAMES_H
#define HEAPTOP_HIDDEN_NAMES_H

#include <stdint.h>

#include "hashmap.h"

typedef struct ht_hidden_entry {
    char *raw;     /* the JVM's name, with its address */
    char *display; /* what is shown */
} ht_hidden_entry;

typedef struct ht_hidden_base {
    char *base;
    uint32_t seen; /* distinct hidden classes of this base so far */
} ht_hidden_base;

typedef struct ht_hidden_names {
    ht_map by_raw, by_base; /* content hash (salted on collision) -> index */
    ht_hidden_entry *entries;
    uint32_t n, cap;
    ht_hidden_base *bases;
    uint32_t nbases, cap_bases;
} ht_hidden_names;

void ht_hidden_names_init(ht_hidden_names *h);
void ht_hidden_names_free(ht_hidden_names *h);
/* The name to show for a Java class name: the name itself unless it is a
 * hidden class's. A fresh copy the caller frees; NULL only out of memory. */
char *ht_hidden_display(ht_hidden_names *h, const char *java_name);

#endif
