/*
 * names.h - Java names from JVM internal forms.
 *
 * Owns: turning type signatures into the names Java source uses
 * ("Ljava/lang/String;" -> "java.lang.String", "[[I" -> "int[][]": checked
 * here, written by common/java_name.h, the project's one converter), and
 * finding the line of a bytecode index in a line number table. Pure
 * functions: no allocation, callable from any thread.
 */
#ifndef HEAPTOP_NAMES_H
#define HEAPTOP_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Write the Java name of a class signature. Returns 0, or -1 if sig is malformed
 * (out then holds the signature unchanged). */
int ht_class_name_from_signature(const char *sig, char *out, size_t n);

typedef struct ht_line_entry {
    int64_t start; /* first bytecode index of the line */
    int32_t line;
} ht_line_entry;

/* The run-independent part of a hidden class's Java name: the address that
 * JDK 15+ appends ("/0x00007f2bd4119918") and, for a lambda, the JVM-wide
 * counter before it ("$162" in "Foo$$Lambda$162") change from run to run, so
 * "pkg.Foo$$Lambda$162/0x00007f2bd4119918" becomes "pkg.Foo$$Lambda" and
 * "java.lang.invoke.LambdaForm$MH/0x0000000800c04400" becomes
 * "java.lang.invoke.LambdaForm$MH" (array dimensions kept). Returns 1 and
 * writes the base when name is a hidden class's, else 0. */
int ht_hidden_class_base(const char *name, char *out, size_t n);

/* Line of bytecode index `bci` in a table (any order); -1 when unknown. */
int32_t ht_line_for_bci(const ht_line_entry *table, size_t n, int64_t bci);

#endif
