/*
 * java_name.h - a class's name as Java writes it, from the JVM's descriptor
 * form of an array class: "[I" -> "int[]", "[[Ljava.lang.String;" ->
 * "java.lang.String[][]" (Class.getTypeName's spelling, the one heaptop
 * shows and writes everywhere: the agent's names, the heap screens, every
 * CSV). What HPROF dumps and `jcmd GC.class_histogram` call an array class
 * is the descriptor; the heap reader turns it into this once, and a filter
 * term typed in the descriptor form is turned into this before it matches.
 *
 * Owns: nothing. Header-only and pure: callable from any thread, from the
 * agent's libraries and the viewer's alike.
 *
 * Must never: write past cap, or change a name that is not an array
 * descriptor (a plain class name, a hidden class's "pkg.A/0x..." suffix and
 * anything malformed are copied as they are).
 */
#ifndef HEAPTOP_JAVA_NAME_H
#define HEAPTOP_JAVA_NAME_H

#include <stdio.h>
#include <string.h>

/* The Java name of `name` into out (cap > 0): 1 when name was an array
 * descriptor ("[" + a primitive code, or "[" + "L...;" with dots), 0 when it
 * was copied unchanged. A descriptor without its closing ';' ("[Ljava.util.Map",
 * as a person may type it) is taken as one with it. */
static inline int ht_java_class_name(const char *name, char *out, size_t cap)
{
    static const char codes[] = "ZCFDBSIJ";
    static const char *const prims[] = {"boolean", "char",  "float", "double",
                                        "byte",    "short", "int",   "long"};
    size_t dims = 0;
    while (name[dims] == '[')
        dims++;
    const char *e = name + dims, *base = NULL;
    size_t blen = 0, elen = strlen(e);
    const char *c = e[0] ? strchr(codes, e[0]) : NULL;
    if (dims && c && e[1] == 0)
        base = prims[c - codes], blen = strlen(base);
    else if (dims && e[0] == 'L' && elen >= 2 && !memchr(e, ';', elen - 1))
        base = e + 1, blen = elen - 1 - (e[elen - 1] == ';');
    if (!base || !blen) {
        snprintf(out, cap, "%s", name);
        return 0;
    }
    size_t at = (size_t)snprintf(out, cap, "%.*s", (int)blen, base);
    for (size_t i = 0; i < dims && at + 2 < cap; i++, at += 2)
        memcpy(out + at, "[]", 3);
    return 1;
}

#endif
