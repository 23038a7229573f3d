/*
 * make_class_seeds.c - writes class files built byte by byte
 * (unit/class_builder.h) into a directory, as seeds for fuzz_classfile: every
 * StackMapTable frame kind, switches, exception, line and local-variable
 * tables, a type annotation, an interface. Usage: make_class_seeds DIR
 */
#include <stdio.h>

#include "class_builder.h"

static int save(const char *dir, const char *name, klass *k)
{
    size_t len;
    uint8_t *p = k_finish(k, &len);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.class", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = 0;
    free(p);
    if (!ok) fprintf(stderr, "make_class_seeds: cannot write %s\n", path);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_class_seeds DIR\n");
        return 2;
    }
    int bad = 0;
    uint8_t code[64] = {0};
    code[0] = 0x03, code[1] = 0xaa; /* iconst_0; tableswitch (padding 2) */
    code[7] = 39;                   /* default: 40 */
    code[15] = 1;                   /* low 0, high 1 */
    code[19] = 39, code[23] = 40;
    code[63] = 0xb1;
    klass k;
    k_init(&k, "seed/Frames", 52, 0x0021);
    cb f = {0}, attrs = {0}, exc = {0}, lnt = {0}, lvt = {0}, ta = {0};
    cb_2(&f, 8);
    cb_1(&f, 40), cb_1(&f, 64), cb_1(&f, 8), cb_2(&f, 0);
    cb_1(&f, 247), cb_2(&f, 1), cb_1(&f, 7), cb_2(&f, 1);
    cb_1(&f, 248), cb_2(&f, 1), cb_1(&f, 251), cb_2(&f, 1);
    cb_1(&f, 252), cb_2(&f, 1), cb_1(&f, 4);
    cb_1(&f, 255), cb_2(&f, 1), cb_2(&f, 2), cb_1(&f, 8), cb_2(&f, 1), cb_1(&f, 3), cb_2(&f, 1);
    cb_1(&f, 0);
    cb_1(&f, 10);
    cb_2(&exc, 0), cb_2(&exc, 30), cb_2(&exc, 40), cb_2(&exc, 0);
    cb_2(&lnt, 2), cb_2(&lnt, 0), cb_2(&lnt, 7), cb_2(&lnt, 40), cb_2(&lnt, 8);
    uint16_t nm = k_utf8(&k, "this"), ds = k_utf8(&k, "Lseed/Frames;");
    cb_2(&lvt, 1), cb_2(&lvt, 0), cb_2(&lvt, 64), cb_2(&lvt, nm), cb_2(&lvt, ds), cb_2(&lvt, 0);
    k_attr(&k, &attrs, "StackMapTable", &f);
    k_attr(&k, &attrs, "LineNumberTable", &lnt);
    k_attr(&k, &attrs, "LocalVariableTable", &lvt);
    k_method(&k, 0x0001, "m", "()V", 1, code, 64, &exc, &attrs, 3);
    k_method(&k, 0x0009, "s", "()V", 1, code + 63, 1, NULL, NULL, 0);
    bad |= save(argv[1], "frames", &k);
    k_init(&k, "seed/Annotated", 49, 0x0021);
    cb_free(&attrs);
    cb_2(&ta, 0);
    k_attr(&k, &attrs, "RuntimeVisibleTypeAnnotations", &ta);
    k_method(&k, 0x0001, "m", "()V", 1, code + 63, 1, NULL, &attrs, 1);
    k_method(&k, 0x0001, "n", "()V", 1, code + 63, 1, NULL, NULL, 0);
    bad |= save(argv[1], "annotated", &k);
    k_init(&k, "seed/Iface", 61, 0x0601);
    k_method(&k, 0x0001, "m", "()V", 1, code + 63, 1, NULL, NULL, 0);
    bad |= save(argv[1], "iface", &k);
    cb_free(&f), cb_free(&attrs), cb_free(&exc), cb_free(&lnt), cb_free(&lvt), cb_free(&ta);
    return bad;
}
