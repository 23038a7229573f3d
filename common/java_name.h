/*
 * java_name.h - a class's name as Java writes it, from the JVM's descriptor
 * form of an array class: "[I" -> "int[]", "[[Ljava.lang.String;" ->
 * "java.lang.String[][]" (Class.getTypeName's spelling, the one heaptop
 * shows and writes everywhere: the agent's names, the heap screens, every
 * CSV). What HPROF dumps and `jcmd GC.class_histogram` call an array class
 * is the descriptor; the heap reader turns it into this once, and a filter
 * term typed in the descriptor form is turned into this before it matches.
 *
 * The agent's names come the same way from JVMTI's signatures, whose
 * separators are '/' ("Ljava/lang/String;", agent/names.c): both readers
 * check their own input's grammar and end in ht_java_type_name, the one
 * place that writes a Java name.
 *
 * Owns: nothing. Header-only and pure: callable from any thread, from the
 * agent's libraries and the viewer's alike. Never allocates: the agent calls
 * it on the JVM's threads.
 *
 * Must never: write past cap, or change a name that is not an array
 * descriptor (a plain class name, a hidden class's "pkg.A/0x..." suffix and
 * anything malformed are copied as they are).
 */
#ifndef HEAPTOP_JAVA_NAME_H
#define HEAPTOP_JAVA_NAME_H

#include <stdio.h>
#include <string.h>

/* Java's keyword for a primitive type's descriptor code ('I' -> "int"),
 * 'V' -> "void" among them (void.class's signature is "V"); NULL for any
 * other character. */
static inline const char *ht_java_primitive_name(char code)
{
    static const char codes[] = "ZCFDBSIJV";
    static const char *const names[] = {"boolean", "char", "float", "double", "byte",
                                        "short",   "int",  "long",  "void"};
    const char *c = code ? strchr(codes, code) : NULL;
    return c ? names[c - codes] : NULL;
}

/* Java's name of a type whose element is elem (elen bytes: a class's name,
 * or a primitive's keyword) with dims array dimensions: the element, then
 * "[]" for each, into out (cap > 0), cut at cap - 1 bytes and never inside a
 * "[]". internal: elem is in the JVM's internal form (JVMTI's signatures:
 * "java/lang/String"), whose '/' separators become '.', save the one before a
 * hidden class's address, which Java writes "/0x..." (JVMTI writes
 * "p/A.0x..."). Returns the length written. */
static inline size_t ht_java_type_name(const char *elem, size_t elen, size_t dims, int internal,
                                       char *out, size_t cap)
{
    size_t at = 0;
    for (size_t i = 0; i < elen && at + 1 < cap; i++) {
        char ch = elem[i];
        if (internal && (ch == '/' || ch == '.'))
            ch = i + 2 < elen && elem[i + 1] == '0' && elem[i + 2] == 'x' ? '/'
                 : ch == '/'                                              ? '.'
                                                                          : ch;
        out[at++] = ch;
    }
    for (size_t d = 0; d < dims && at + 2 < cap; d++) {
        out[at++] = '[';
        out[at++] = ']';
    }
    out[at] = '\0';
    return at;
}

/* The Java name of `name` into out (cap > 0): 1 when name was an array
 * descriptor ("[" + a primitive code, or "[" + "L...;" with dots), 0 when it
 * was copied unchanged. A descriptor without its closing ';' ("[Ljava.util.Map",
 * as a person may type it) is taken as one with it. An array of void is no
 * type: "[V" is copied. */
static inline int ht_java_class_name(const char *name, char *out, size_t cap)
{
    size_t dims = 0;
    while (name[dims] == '[')
        dims++;
    const char *e = name + dims;
    size_t elen = strlen(e);
    const char *prim = e[0] != 'V' && e[0] && e[1] == 0 ? ht_java_primitive_name(e[0]) : NULL;
    if (dims && prim) {
        ht_java_type_name(prim, strlen(prim), dims, 0, out, cap);
        return 1;
    }
    if (dims && e[0] == 'L' && elen >= 2 && !memchr(e, ';', elen - 1)) {
        size_t blen = elen - 1 - (e[elen - 1] == ';');
        if (blen) {
            ht_java_type_name(e + 1, blen, dims, 0, out, cap);
            return 1;
        }
    }
    snprintf(out, cap, "%s", name);
    return 0;
}

#endif
