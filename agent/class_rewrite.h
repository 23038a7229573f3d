/*
 * class_rewrite.h - drag mode's bytecode rewriter: the call to the helper
 * injected at the entry of a class's instance methods.
 *
 * Owns: the rewrite of one class file in memory (class_file.h parses it):
 * the constant pool entries of the helper's method appended, and per method
 * the 8-byte prologue "aload_0; sipush cid; invokestatic
 * heaptop/Drag.touch(Ljava/lang/Object;I)V; nop" at offset 0, with every
 * offset that follows moved by 8: the exception table, LineNumberTable,
 * LocalVariable(Type)Table and StackMapTable (first frame's delta, promoted
 * to its extended form past 63, and every Uninitialized(offset)). Relative
 * branches and switch padding do not change (8 is a multiple of 4), and a
 * branch back to the old offset 0 lands on the original first instruction,
 * past the prologue. A method whose Code carries another attribute (type
 * annotations hold offsets) or that would pass 65535 bytes is left alone and
 * counted. Pure: any thread, no globals, no JVMTI; never reads past its
 * input, allocates a small multiple of it, never crashes on any bytes (it is
 * fuzzed: tests/fuzz/fuzz_classfile.c).
 */
#ifndef HEAPTOP_CLASS_REWRITE_H
#define HEAPTOP_CLASS_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#define HT_DRAG_HELPER_CLASS  "heaptop/Drag"
#define HT_DRAG_HELPER_METHOD "touch"
#define HT_DRAG_HELPER_DESC   "(Ljava/lang/Object;I)V"
/* The prologue's length: a multiple of 4, so switch padding keeps. */
#define HT_DRAG_PROLOGUE 8u

typedef struct ht_rewrite_stats {
    uint32_t methods;      /* instance methods with code (not <init>) seen */
    uint32_t injected;     /* of them, with the call injected */
    uint32_t skipped_long; /* code_length + 8 would pass 65535 */
    uint32_t skipped_attr; /* a Code attribute the rewriter cannot correct (e.g.
                              RuntimeVisibleTypeAnnotations, which hold offsets) */
} ht_rewrite_stats;

/* Rewrites the class file in[0..len): at offset 0 of every method that is not
 * static, abstract or native and is not <init>/<clinit>, inserts
 * aload_0; sipush cid; invokestatic HT_DRAG_HELPER_CLASS.touch(Object,int); nop.
 * 0: rewritten, *out malloc'd (the caller frees), *out_len set; 1: nothing to
 * inject (an interface, a module-info, no such method, or every one skipped),
 * *out NULL; -1: malformed or impossible (constant pool full, ...), one line
 * in err naming what was wrong. st counts either way. cid is 1..32767.
 * Bounded: never reads past len, never allocates more than a small multiple
 * of len, any input. Pure: any thread, no globals. */
int ht_class_rewrite(const uint8_t *in, size_t len, uint16_t cid, uint8_t **out, size_t *out_len,
                     ht_rewrite_stats *st, char *err, size_t errn);

#endif
