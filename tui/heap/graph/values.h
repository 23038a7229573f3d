/*
 * values.h - what an object of a snapshot holds, in words: its fields and
 * their values, an array's elements, a class's statics, and a short preview
 * (a String's text, a primitive array's first values), all read on demand
 * from the mapped dump.
 *
 * Threads: any, on a finished snapshot (read-only). Must never: read outside
 * the object's own sub-record, or write past the caller's buffers.
 */
#ifndef HEAPTOP_VALUES_H
#define HEAPTOP_VALUES_H

#include "snapshot.h"

#include <stddef.h>

typedef struct ht_field {
    char name[128];  /* "value", "[3]", "static LISTENERS", "<super>" */
    char value[256]; /* "42", "true", "null", "\"abc\"", "java.util.ArrayList" */
    uint32_t target; /* the object it refers to, or HT_NONE */
} ht_field;

/* Each field of object n (an instance's fields, its class's first then its
 * superclasses'; an array's elements, at most max; a class's statics), in
 * order. Returns how many there are in all (an array: its length). */
uint64_t ht_fields_each(const ht_snapshot *s, uint32_t n, uint32_t max,
                        void (*f)(void *ctx, const ht_field *fl), void *ctx);

/* The object instance n's reference field `name` holds (its class's first,
 * then its superclasses'), or HT_NONE: null, no such field, not an instance. */
uint32_t ht_field_object(const ht_snapshot *s, uint32_t n, const char *name);

/* A short text for object n: a String's text in quotes, a primitive array's
 * first values, a boxed number's value, else "" (nothing to add). */
void ht_object_preview(const ht_snapshot *s, uint32_t n, char *buf, size_t cap);

/* Object n's content in one line, cut to cap: what ht_object_preview says
 * when it says something, else its fields ("{next=demo.Node, v=3}") or an
 * object array's elements ("[2] {java.lang.String \"a\", null}"). */
void ht_object_content(const ht_snapshot *s, uint32_t n, char *buf, size_t cap);

#endif
