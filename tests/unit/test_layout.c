/*
 * test_layout.c - object sizes against layouts worked out by hand from
 * HotSpot's FieldLayoutBuilder (JDK 15+), arrayOop.hpp and InstanceMirrorKlass,
 * each with its offsets; JDK 17 and JDK 25 agree on these shapes
 * (Instrumentation.getObjectSize, jcmd GC.class_histogram: checked by hand,
 * not here, as this suite runs no JVM). Then odd input: no
 * layout, unknown type codes, NULL levels, huge counts, a deep hierarchy and
 * 65535-field classes, none of which may crash or take long.
 */
#include "check.h"
#include "layout.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    O = HT_TYPE_OBJECT,
    Z = HT_TYPE_BOOLEAN,
    C = HT_TYPE_CHAR,
    F = HT_TYPE_FLOAT,
    D = HT_TYPE_DOUBLE,
    B = HT_TYPE_BYTE,
    S = HT_TYPE_SHORT,
    I = HT_TYPE_INT,
    J = HT_TYPE_LONG,
};

/* Up to 6 levels below java.lang.Object, each a string of type letters:
 * size(L, "JI", "B") is class B extends A { byte } where A { long; int }. */
static uint32_t size_of(const ht_layout *L, int n, const char *const *lv)
{
    uint8_t buf[8][64];
    const uint8_t *levels[8];
    uint32_t counts[8];
    levels[0] = NULL; /* java.lang.Object declares nothing */
    counts[0] = 0;
    for (int i = 0; i < n; i++) {
        uint32_t k = 0;
        for (const char *p = lv[i]; *p; p++) {
            static const char letters[] = "OZCFDBSIJ";
            static const uint8_t codes[] = {O, Z, C, F, D, B, S, I, J};
            const char *q = strchr(letters, *p);
            buf[i][k++] = q ? codes[q - letters] : 99; /* anything else: no type */
        }
        levels[i + 1] = buf[i];
        counts[i + 1] = k;
    }
    return ht_layout_instance_size(L, levels, counts, (unsigned)n + 1);
}
#define SIZE(L, ...)                                                                               \
    size_of(L, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)),                \
            (const char *[]){__VA_ARGS__})

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static const ht_layout *const CO = &HT_LAYOUT_COMPRESSED, *const UN = &HT_LAYOUT_UNCOMPRESSED,
                              *const CH = &HT_LAYOUT_COMPACT;

static void test_presets(void)
{
    CHECK(CO->header == 12 && CO->oop == 4 && CO->array_length_off == 12);
    CHECK(UN->header == 12 && UN->oop == 8 && UN->array_length_off == 12);
    CHECK(CH->header == 8 && CH->oop == 4 && CH->array_length_off == 8);
    CHECK(strcmp(CO->name, "compressed oops") == 0);
    CHECK(strcmp(UN->name, "uncompressed oops") == 0);
    CHECK(strcmp(CH->name, "compact headers") == 0);
    CHECK(ht_layout_type_size(CO, O) == 4 && ht_layout_type_size(UN, O) == 8);
    CHECK(ht_layout_type_size(CO, Z) == 1 && ht_layout_type_size(CO, B) == 1);
    CHECK(ht_layout_type_size(CO, C) == 2 && ht_layout_type_size(CO, S) == 2);
    CHECK(ht_layout_type_size(CO, F) == 4 && ht_layout_type_size(CO, I) == 4);
    CHECK(ht_layout_type_size(CO, D) == 8 && ht_layout_type_size(CO, J) == 8);
    CHECK(ht_layout_type_size(CO, 0) == 0 && ht_layout_type_size(CO, 1) == 0);
    CHECK(ht_layout_type_size(CO, 3) == 0 && ht_layout_type_size(CO, 12) == 0);
}

/* Compressed oops: header 12, references 4. */
static void test_compressed(void)
{
    const uint8_t *none = NULL;
    uint32_t zero = 0;
    /* java.lang.Object: header 0..12, end 12 -> 16 */
    CHECK(ht_layout_instance_size(CO, &none, &zero, 1) == 16);
    CHECK(ht_layout_instance_size(CO, NULL, NULL, 0) == 16);
    /* { boolean }: z@12, end 13 -> 16 */
    CHECK(SIZE(CO, "Z") == 16);
    /* { int }: @12 -> 16; { int, int }: @12 @16, end 20 -> 24 */
    CHECK(SIZE(CO, "I") == 16);
    CHECK(SIZE(CO, "II") == 24);
    /* A { long x; int y }: x first (largest), no gap fits it: gap 12..16, x@16;
     * y fills the gap: y@12; end 24 -> 24 */
    CHECK(SIZE(CO, "JI") == 24);
    CHECK(SIZE(CO, "IJ") == 24); /* declaration order does not matter */
    /* B extends A { byte b }: A has no gap; b@24, end 25 -> 32 */
    CHECK(SIZE(CO, "JI", "B") == 32);
    /* { long } alone: gap 12..16, x@16 -> 24 */
    CHECK(SIZE(CO, "J") == 24);
    /* B extends { long } { int }: the super's gap 12..16 takes it: i@12 -> 24 */
    CHECK(SIZE(CO, "J", "I") == 24);
    /* B extends { long } { short; byte }: s@12, b@14, gap 15..16 -> 24; then
     * C { int } finds no 4-byte gap: @24 -> 32; C' { byte } takes 15 -> 24 */
    CHECK(SIZE(CO, "J", "SB") == 24);
    CHECK(SIZE(CO, "J", "SB", "I") == 32);
    CHECK(SIZE(CO, "J", "SB", "B") == 24);
    /* 3 references: @12 @16 @20, end 24 -> 24 */
    CHECK(SIZE(CO, "OOO") == 24);
    /* { Object; long; byte }: j: gap 12..16, j@16; b@12 (gap 13..16 left);
     * o: needs 4 aligned, 13..16 does not fit: o@24, end 28 -> 32 */
    CHECK(SIZE(CO, "OJB") == 32);
    /* A subclass uses its super's trailing padding (the end of the super's
     * last field, not its aligned size): A { byte } a@12 -> 16;
     * B extends A { byte } b@13 -> 16; B' extends A { int }: gap 13..16, @16 -> 24 */
    CHECK(SIZE(CO, "B") == 16);
    CHECK(SIZE(CO, "B", "B") == 16);
    CHECK(SIZE(CO, "B", "I") == 24);
    /* { double; float; char; short; boolean; byte }: d: gap 12..16, d@16; f@12;
     * c@24 s@26 z@28 b@29, end 30 -> 32 */
    CHECK(SIZE(CO, "DFCSZB") == 32);
    /* Best fit, the smallest gap that fits:
     * A { long }: gap 12..16, l@16, end 24
     * B { byte }: b@12, gap 13..16
     * C { long; int }: m@24; i: 13..16 cannot take an aligned int: i@32, end 36
     * D { long; short }: n: gap 36..40, n@40, end 48; s fits 13..16 (3 bytes,
     *   s@14) and 36..40 (4 bytes): the smaller, 13..16 -> 48
     * E { int }: 36..40 is still free: e@36 -> 48 (56 had s taken 36..38) */
    CHECK(SIZE(CO, "J", "B", "JI", "JS") == 48);
    CHECK(SIZE(CO, "J", "B", "JI", "JS", "I") == 48);
    /* The alignment gap in front of a field put into a gap stays usable:
     * A { long } gap 12..16; B { byte } b@12, gap 13..16; C { short }: s@14,
     * gap 13..14; D { byte }: @13 -> 24 (appended, it would be 32) */
    CHECK(SIZE(CO, "J", "B", "S", "B") == 24);
    /* Which of two equal gaps a field takes (HotSpot: the last) changes no
     * size with these layouts: every gap of a given size has the same offset
     * modulo 8 (gaps of 4..7 bytes end at a multiple of 8, of 2..3 bytes at an
     * even offset), so the rest of the layout is the same either way. */
    /* Level by level: each level's fields may not move the super's */
    CHECK(SIZE(CO, "I", "I", "I") == 24); /* @12 @16 @20 */
    CHECK(SIZE(CO, "S", "S", "S") == 24); /* @12 @14 @16, end 18 -> 24 */
    /* Unknown type codes are fields of no size: "?" is code 99 */
    CHECK(SIZE(CO, "??I?") == 16);
    CHECK(SIZE(CO, "???") == 16);
}

/* Uncompressed oops: header 12, references 8 aligned to 8. */
static void test_uncompressed(void)
{
    /* 3 references: none fits 12..16: gap 12..16, @16 @24 @32, end 40 -> 40
     * (the second and third are appended without a search: same size as a
     * failed one) */
    CHECK(SIZE(UN, "OOO") == 40);
    /* { Object; int }: primitives first: i@12, o@16, end 24 -> 24 */
    CHECK(SIZE(UN, "OI") == 24);
    /* { Object } then B { int }: gap 12..16, o@16, then i@12 -> 24 */
    CHECK(SIZE(UN, "O", "I") == 24);
    /* { Object; long }: l: gap 12..16, l@16; o@24 -> 32 */
    CHECK(SIZE(UN, "OJ") == 32);
    /* { boolean } is 16 as with compressed oops */
    CHECK(SIZE(UN, "Z") == 16);
    /* { Object; byte; byte }: b@12 b@13; o: gap 14..16, o@16 -> 24 */
    CHECK(SIZE(UN, "OBB") == 24);
    /* primitives do not depend on the reference size */
    CHECK(SIZE(UN, "JI", "B") == 32);
    CHECK(SIZE(UN, "J", "SB", "I") == 32);
}

/* Compact headers (JDK 24+): header 8, references 4. */
static void test_compact(void)
{
    /* java.lang.Object: 8 bytes, no field space at all */
    CHECK(SIZE(CH, "") == 8);
    CHECK(ht_layout_instance_size(CH, NULL, NULL, 0) == 8);
    /* { boolean }: @8, end 9 -> 16 */
    CHECK(SIZE(CH, "Z") == 16);
    /* { int }: @8 -> 16; { int; int }: @8 @12 -> 16 */
    CHECK(SIZE(CH, "I") == 16);
    CHECK(SIZE(CH, "II") == 16);
    /* { long }: @8 -> 16: no gap, the header ends aligned */
    CHECK(SIZE(CH, "J") == 16);
    /* A { long x; int y }: x@8, y@16, end 20 -> 24 */
    CHECK(SIZE(CH, "JI") == 24);
    /* B extends A { byte }: b@20 -> 24 */
    CHECK(SIZE(CH, "JI", "B") == 24);
    /* 3 references: @8 @12 @16, end 20 -> 24 */
    CHECK(SIZE(CH, "OOO") == 24);
    /* { byte } then B { int }: b@8, gap 9..12, i@12 -> 16; then C { short }:
     * 9..12 takes it at 10 -> 16; C' { byte }: 9 -> 16 */
    CHECK(SIZE(CH, "B", "I") == 16);
    CHECK(SIZE(CH, "B", "I", "S") == 16);
    CHECK(SIZE(CH, "B", "I", "B") == 16);
    /* { byte } then B { long }: gap 9..16, l@16 -> 24; C { int }: 9..16 fits
     * an int at 12 -> 24 */
    CHECK(SIZE(CH, "B", "J") == 24);
    CHECK(SIZE(CH, "B", "J", "I") == 24);
    /* with 8-byte references (no preset; -UseCompressedOops + compact): @8 @16 @24 -> 32 */
    ht_layout wide = HT_LAYOUT_COMPACT;
    wide.oop = 8;
    CHECK(SIZE(&wide, "OOO") == 32);
}

static void test_arrays(void)
{
    /* compressed: length@12, elements@16 for every type (JDK 17 aligned all
     * to 8; from JDK 22 only 8-byte ones, and 12+4 = 16 anyway) */
    CHECK(ht_layout_array_size(CO, I, 0) == 16);
    CHECK(ht_layout_array_size(CO, B, 0) == 16);
    CHECK(ht_layout_array_size(CO, J, 0) == 16);
    CHECK(ht_layout_array_size(CO, O, 0) == 16);
    CHECK(ht_layout_array_size(CO, B, 1) == 24); /* 17 -> 24 */
    CHECK(ht_layout_array_size(CO, B, 8) == 24); /* 24 */
    CHECK(ht_layout_array_size(CO, B, 9) == 32); /* 25 -> 32 */
    CHECK(ht_layout_array_size(CO, Z, 9) == 32); /* 25 -> 32 */
    CHECK(ht_layout_array_size(CO, C, 4) == 24); /* 16+8 */
    CHECK(ht_layout_array_size(CO, S, 3) == 24); /* 22 -> 24 */
    CHECK(ht_layout_array_size(CO, I, 1) == 24); /* 20 -> 24 */
    CHECK(ht_layout_array_size(CO, I, 2) == 24); /* 24 */
    CHECK(ht_layout_array_size(CO, F, 3) == 32); /* 28 -> 32 */
    CHECK(ht_layout_array_size(CO, J, 1) == 24); /* 24 */
    CHECK(ht_layout_array_size(CO, D, 2) == 32); /* 32 */
    CHECK(ht_layout_array_size(CO, O, 1) == 24); /* 20 -> 24 */
    CHECK(ht_layout_array_size(CO, O, 3) == 32); /* 28 -> 32 */
    CHECK(ht_layout_array_size(CO, O, 4) == 32); /* 32 */
    CHECK(ht_layout_array_size(CO, C, 1000) == 2016);
    /* uncompressed: references 8 bytes at 16 */
    CHECK(ht_layout_array_size(UN, O, 0) == 16);
    CHECK(ht_layout_array_size(UN, O, 1) == 24);
    CHECK(ht_layout_array_size(UN, O, 3) == 40); /* 16+24 */
    CHECK(ht_layout_array_size(UN, I, 0) == 16);
    CHECK(ht_layout_array_size(UN, I, 1) == 24);
    CHECK(ht_layout_array_size(UN, B, 9) == 32);
    CHECK(ht_layout_array_size(UN, J, 1) == 24);
    /* compact: length@8, elements@12, 8-byte elements @16 */
    CHECK(ht_layout_array_size(CH, I, 0) == 16); /* 12 -> 16 */
    CHECK(ht_layout_array_size(CH, B, 0) == 16);
    CHECK(ht_layout_array_size(CH, O, 0) == 16);
    CHECK(ht_layout_array_size(CH, J, 0) == 16);
    CHECK(ht_layout_array_size(CH, I, 1) == 16); /* 16 */
    CHECK(ht_layout_array_size(CH, I, 2) == 24); /* 20 -> 24 */
    CHECK(ht_layout_array_size(CH, I, 3) == 24); /* 24 */
    CHECK(ht_layout_array_size(CH, F, 1) == 16);
    CHECK(ht_layout_array_size(CH, B, 4) == 16); /* 16 */
    CHECK(ht_layout_array_size(CH, B, 5) == 24); /* 17 -> 24 */
    CHECK(ht_layout_array_size(CH, Z, 4) == 16);
    CHECK(ht_layout_array_size(CH, C, 2) == 16); /* 16 */
    CHECK(ht_layout_array_size(CH, S, 3) == 24); /* 18 -> 24 */
    CHECK(ht_layout_array_size(CH, O, 1) == 16); /* 16 */
    CHECK(ht_layout_array_size(CH, O, 3) == 24); /* 24 */
    CHECK(ht_layout_array_size(CH, J, 1) == 24); /* 16+8 */
    CHECK(ht_layout_array_size(CH, D, 1) == 24);
    CHECK(ht_layout_array_size(CH, D, 2) == 32);
    ht_layout wide = HT_LAYOUT_COMPACT; /* 8-byte references align as longs do */
    wide.oop = 8;
    CHECK(ht_layout_array_size(&wide, O, 1) == 24);
    /* what is not an element type */
    CHECK(ht_layout_array_size(CO, 0, 5) == 0);
    CHECK(ht_layout_array_size(CO, 1, 5) == 0);
    CHECK(ht_layout_array_size(CO, 3, 5) == 0);
    CHECK(ht_layout_array_size(CO, 12, 5) == 0);
    CHECK(ht_layout_array_size(CO, 255, 5) == 0);
    CHECK(ht_layout_array_size(NULL, I, 5) == 0);
    /* the largest Java array, and lengths no array has */
    CHECK(ht_layout_array_size(CO, J, 0x7fffffff) == 16 + 8ull * 0x7fffffff);
    CHECK(ht_layout_array_size(CO, B, 0x7fffffff) == 16 + 0x80000000ull);
    CHECK(ht_layout_array_size(CO, J, UINT64_MAX) == UINT64_MAX);
    CHECK(ht_layout_array_size(CO, B, UINT64_MAX - 3) == UINT64_MAX);
}

static uint32_t mirror(const ht_layout *L, uint32_t base, const char *statics)
{
    uint8_t t[64];
    uint32_t n = 0;
    for (const char *p = statics; *p; p++) {
        static const char letters[] = "OZCFDBSIJ";
        static const uint8_t codes[] = {O, Z, C, F, D, B, S, I, J};
        const char *q = strchr(letters, *p);
        t[n++] = q ? codes[q - letters] : 0;
    }
    return ht_layout_mirror_size(L, base, t, n);
}

static void test_mirrors(void)
{
    /* no statics: the mirror is java.lang.Class's own instance size */
    CHECK(mirror(CO, 96, "") == 96);
    CHECK(ht_layout_mirror_size(CO, 96, NULL, 0) == 96);
    /* statics are only appended, never put in gaps: references first, then
     * primitives by size. { static Object o; long l; int i }: o@96, gap
     * 100..104, l@104, i@112, end 116 -> 120 (best fit would say 112) */
    CHECK(mirror(CO, 96, "JIO") == 120);
    /* uncompressed: o@96, l@104, i@112 -> 120 */
    CHECK(mirror(UN, 96, "JIO") == 120);
    /* { static int; static byte }: i@96, b@100, end 101 -> 104 */
    CHECK(mirror(CO, 96, "IB") == 104);
    /* { static byte; static long }: l@96, b@104 -> 112 */
    CHECK(mirror(CO, 96, "BJ") == 112);
    /* 3 references: @96 @100 @104 -> 112; uncompressed @96 @104 @112 -> 120 */
    CHECK(mirror(CO, 96, "OOO") == 112);
    CHECK(mirror(UN, 96, "OOO") == 120);
    /* { static short; static byte; static Object }: o@96, s@100, b@102 -> 104 */
    CHECK(mirror(CH, 96, "SBO") == 104);
    /* a base that is not a multiple of 8 is taken up to one */
    CHECK(mirror(CO, 92, "I") == 104);
    /* unknown static types take nothing */
    CHECK(mirror(CO, 96, "??") == 96);
    CHECK(ht_layout_mirror_size(NULL, 96, NULL, 0) == 0);
}

/* Input no class has, and hierarchies as deep and wide as the class file
 * format allows: no crash, no overflow, no quadratic blow-up in the run of a
 * single size. */
static void test_odd(void)
{
    CHECK(ht_layout_instance_size(NULL, NULL, NULL, 3) == 0);
    /* NULL types or counts: no fields at all */
    CHECK(ht_layout_instance_size(CO, NULL, NULL, 5) == 16);
    const uint8_t *levels[3] = {NULL, NULL, NULL};
    uint32_t counts[3] = {0, 7, 9}; /* NULL levels with counts: no fields */
    CHECK(ht_layout_instance_size(CO, levels, counts, 3) == 16);
    /* the object alignment is a field: 16 */
    ht_layout big = HT_LAYOUT_COMPRESSED;
    big.align = 16;
    CHECK(SIZE(&big, "JI", "B") == 32);
    CHECK(SIZE(&big, "I") == 16);
    CHECK(SIZE(&big, "II") == 32);
    CHECK(ht_layout_array_size(&big, I, 1) == 32);
    CHECK(mirror(&big, 96, "I") == 112);
    /* a reference size of 0 ignores references */
    ht_layout noref = HT_LAYOUT_COMPRESSED;
    noref.oop = 0;
    CHECK(SIZE(&noref, "OOOI") == 16);
    CHECK(ht_layout_array_size(&noref, O, 3) == 0);

    /* 65535 fields of one level: ints @12.., end 12 + 4*65535 = 262152 */
    uint32_t n = 65535;
    uint8_t *t = malloc(n);
    if (!t) {
        CHECK(!"out of memory");
        return;
    }
    memset(t, I, n);
    const uint8_t *one[2] = {NULL, t};
    uint32_t cnt[2] = {0, n};
    CHECK(ht_layout_instance_size(CO, one, cnt, 2) == 262152);
    /* half longs, half bytes: longs from 16 (gap 12..16), 32767 * 8 = 262136,
     * end 262152; 4 bytes fill 12..16, the other 32764 follow: 294916 -> 294920 */
    for (uint32_t i = 0; i < n; i++)
        t[i] = i % 2 ? J : B;
    CHECK(ht_layout_instance_size(CO, one, cnt, 2) == 294920);
    /* every type at random: the size is the sum of the fields' sizes, rounded,
     * once the primitives pack without gaps (largest first) */
    uint64_t sum = 0;
    uint32_t seed = 1;
    static const uint8_t codes[] = {O, Z, C, F, D, B, S, I, J, 0, 3, 99};
    for (uint32_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        t[i] = codes[(seed >> 16) % sizeof codes];
        sum += ht_layout_type_size(CO, t[i]);
    }
    uint32_t got = ht_layout_instance_size(CO, one, cnt, 2);
    CHECK(got >= 12 + sum && got <= 12 + sum + 16 && got % 8 == 0);

    /* 100 000 levels of { long; byte }: the gaps this leaves behind are many,
     * every level searches them; it must still finish and agree with itself */
    unsigned deep = 100000;
    const uint8_t **lv = malloc(deep * sizeof *lv);
    uint32_t *lc = malloc(deep * sizeof *lc);
    static const uint8_t jb[2] = {J, B};
    if (lv && lc) {
        for (unsigned i = 0; i < deep; i++)
            lv[i] = jb, lc[i] = 2;
        uint32_t a = ht_layout_instance_size(CO, lv, lc, deep);
        CHECK(a > 9 * deep && a <= 16 * deep + 16 && a % 8 == 0);
        /* one byte per level packs: 12 + 100000 -> 100016 */
        static const uint8_t b1[1] = {B};
        for (unsigned i = 0; i < deep; i++)
            lv[i] = b1, lc[i] = 1;
        CHECK(ht_layout_instance_size(CO, lv, lc, deep) == 100016);
        /* levels of 65535 longs until past 4 GiB: saturates (half a billion
         * fields to count: plain arithmetic, so not in the slow asan build) */
        for (unsigned i = 0; i < deep; i++)
            lv[i] = t, lc[i] = n;
        memset(t, J, n);
        CHECK(ht_layout_instance_size(CO, lv, lc, 100) == 12 + 4 + 100ull * 65535 * 8);
        if (!UNDER_ASAN) CHECK(ht_layout_instance_size(CO, lv, lc, 9000) == UINT32_MAX);
    } else {
        CHECK(!"out of memory");
    }
    free(lv);
    free(lc);
    free(t);
}

/* A hierarchy laid out level by level from the superclass's state
 * (ht_layout_extend) has the size of the whole walk from the top, in each
 * layout, over 20,000 random hierarchies of up to 12 levels of up to 6
 * fields; and the state never needs more than its HT_LAYOUT_GAPS gaps. */
static void test_extend(void)
{
    const ht_layout *Ls[] = {&HT_LAYOUT_COMPRESSED, &HT_LAYOUT_UNCOMPRESSED, &HT_LAYOUT_COMPACT};
    static const uint8_t kinds[] = {2, 4, 5, 6, 7, 8, 9, 10, 11};
    uint32_t seed = 12345, bad = 0, overflow = 0;
    for (int run = 0; run < 20000; run++) {
        uint8_t t[12][6];
        const uint8_t *levels[12];
        uint32_t counts[12];
        seed = seed * 1103515245u + 12345u;
        unsigned depth = 1 + (seed >> 16) % 12;
        for (unsigned lv = 0; lv < depth; lv++) {
            seed = seed * 1103515245u + 12345u;
            counts[lv] = (seed >> 16) % 7;
            for (unsigned k = 0; k < counts[lv]; k++) {
                seed = seed * 1103515245u + 12345u;
                t[lv][k] = kinds[(seed >> 16) % 9];
            }
            levels[lv] = t[lv];
        }
        for (unsigned l = 0; l < 3; l++) {
            ht_layout_fields st[12];
            for (unsigned lv = 0; lv < depth; lv++) {
                if (ht_layout_extend(Ls[l], lv ? &st[lv - 1] : NULL, levels[lv], counts[lv],
                                     &st[lv]) != 0) {
                    overflow++;
                    break;
                }
                bad += ht_layout_fields_size(Ls[l], &st[lv]) !=
                       ht_layout_instance_size(Ls[l], levels, counts, lv + 1);
            }
        }
    }
    CHECK_MSG(bad == 0, "%u sizes differ between the level-by-level and the whole layout", bad);
    CHECK_MSG(overflow == 0, "%u layouts needed more than %d gaps", overflow, HT_LAYOUT_GAPS);
}

int main(void)
{
    test_extend();
    test_presets();
    test_compressed();
    test_uncompressed();
    test_compact();
    test_arrays();
    test_mirrors();
    test_odd();
    return check_summary();
}
