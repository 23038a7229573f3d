/*
 * test_export_heap.c - the heap screens' CSV layouts (export_heap.h), without
 * a terminal: the rows a screen copies, written as its export key writes
 * them, read back to the byte.
 */
#include "check.h"
#include "export_heap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/heaptop-test-XXXXXX";

static const char *file(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* The file's text is want, exactly. */
static void check_file(const char *path, const char *want)
{
    const char *text = check_slurp(path);
    CHECK_MSG(text && strcmp(text, want) == 0, "%s:\n%s\nwanted:\n%s", path, text ? text : "(none)",
              want);
}

static void test_classes(void)
{
    ht_export_heap_classes *c = ht_export_heap_classes_new(2);
    CHECK(c && c->n == 0);
    c->r[0] = (ht_export_class_row){
        .name = strdup("byte[]"), .instances = 3, .shallow = 120, .retained = 4000};
    snprintf(c->r[0].loader, sizeof c->r[0].loader, "boot");
    c->r[1] = (ht_export_class_row){
        .name = strdup("demo.Cache$Entry"), .instances = 1, .shallow = 24, .retained = 24};
    snprintf(c->r[1].loader, sizeof c->r[1].loader, "app");
    c->n = 2;
    CHECK(ht_export_heap_classes_write(c, NULL, file("classes.csv"), NULL) == 0);
    check_file(file("classes.csv"),
               "\"class\",\"instances\",\"shallow_bytes\",\"retained_bytes\",\"loader\"\r\n"
               "\"byte[]\",\"3\",\"120\",\"4000\",\"boot\"\r\n"
               "\"demo.Cache$Entry\",\"1\",\"24\",\"24\",\"app\"\r\n");
    ht_export_heap_classes_free(c);
    /* no rows: the header only */
    c = ht_export_heap_classes_new(0);
    CHECK(c && c->r == NULL);
    CHECK(ht_export_heap_classes_write(c, NULL, file("none.csv"), NULL) == 0);
    check_file(file("none.csv"),
               "\"class\",\"instances\",\"shallow_bytes\",\"retained_bytes\",\"loader\"\r\n");
    ht_export_heap_classes_free(c);
}

static void test_dominators(void)
{
    ht_export_heap_doms *e = ht_export_heap_doms_new(3);
    CHECK(e != NULL);
    e->r[0] = (ht_export_dom_row){.depth = 0, .id = 0xe0000000, .shallow = 16, .retained = 900};
    snprintf(e->r[0].label, sizeof e->r[0].label, "java.util.HashMap");
    e->r[1] = (ht_export_dom_row){.depth = 1, .id = 0xe0000010, .shallow = 80, .retained = 800};
    snprintf(e->r[1].label, sizeof e->r[1].label, "java.util.HashMap$Node[]");
    e->r[2] = (ht_export_dom_row){.depth = 1, .more = 7}; /* the children not shown */
    e->n = 3;
    CHECK(ht_export_heap_doms_write(e, NULL, file("dominators.csv"), NULL) == 0);
    check_file(file("dominators.csv"),
               "\"depth\",\"object_id\",\"class\",\"shallow_bytes\",\"retained_bytes\"\r\n"
               "\"0\",\"0xe0000000\",\"java.util.HashMap\",\"16\",\"900\"\r\n"
               "\"1\",\"0xe0000010\",\"java.util.HashMap$Node[]\",\"80\",\"800\"\r\n"
               "\"1\",\"\",\"... 7 more\",\"\",\"\"\r\n");
    ht_export_heap_doms_free(e);
}

static void test_duplicates(void)
{
    static const char header[] =
        "\"class\",\"copies\",\"bytes_each\",\"wasted_bytes\",\"preview\"\r\n";
    ht_export_heap_dups *e = ht_export_heap_dups_new(1);
    CHECK(e != NULL);
    e->r[0] = (ht_export_dup_row){.name = strdup("java.lang.String"),
                                  .preview = strdup("\"hello, \"\"world\"\"\""),
                                  .copies = 5000,
                                  .each = 56,
                                  .wasted = 279944};
    e->n = 1;
    CHECK(ht_export_heap_dups_write(e, NULL, file("duplicates.csv"), NULL) == 0);
    char want[512];
    snprintf(want, sizeof want, "%s%s", header,
             "\"java.lang.String\",\"5000\",\"56\",\"279944\","
             "\"\"\"hello, \"\"\"\"world\"\"\"\"\"\"\"\r\n");
    check_file(file("duplicates.csv"), want);
    ht_export_heap_dups_free(e);
    /* `heaptop heap`'s duplicates.csv has the same columns */
    ht_snapshot s = {0};
    ht_dups g = {0};
    CHECK(ht_export_duplicates(&s, &g, file("heap_duplicates.csv")) == 0);
    check_file(file("heap_duplicates.csv"), header);
}

static void test_refs(void)
{
    ht_export_heap_refs *e = ht_export_heap_refs_new(4);
    CHECK(e != NULL);
    e->r[0] = (ht_export_ref_row){.part = HT_REF_PART_HEADING};
    snprintf(e->r[0].text, sizeof e->r[0].text, "Fields");
    e->r[1] =
        (ht_export_ref_row){.part = HT_REF_PART_IN, .depth = 1, .has_id = 1, .id = 0xe0000020};
    snprintf(e->r[1].text, sizeof e->r[1].text, "    <- demo.Cache @0xe0000020  .map");
    /* where a sampled object was allocated: a part of its own */
    e->r[2] = (ht_export_ref_row){.part = HT_REF_PART_FRAME};
    snprintf(e->r[2].text, sizeof e->r[2].text, "  demo.Main.alloc:42");
    e->r[3] = (ht_export_ref_row){.part = HT_REF_PART_MORE, .depth = 2};
    snprintf(e->r[3].text, sizeof e->r[3].text, "      ... 3 more");
    e->n = 4;
    CHECK(ht_export_heap_refs_write(e, NULL, file("references.csv"), NULL) == 0);
    check_file(file("references.csv"), "\"part\",\"depth\",\"object_id\",\"text\"\r\n"
                                       "\"heading\",\"0\",\"\",\"Fields\"\r\n"
                                       "\"referenced_by\",\"1\",\"0xe0000020\","
                                       "\"<- demo.Cache @0xe0000020  .map\"\r\n"
                                       "\"allocated_at\",\"0\",\"\",\"demo.Main.alloc:42\"\r\n"
                                       "\"more\",\"2\",\"\",\"... 3 more\"\r\n");
    ht_export_heap_refs_free(e);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    test_classes();
    test_dominators();
    test_duplicates();
    test_refs();
    const char *names[] = {"classes.csv",    "none.csv",       "dominators.csv",
                           "duplicates.csv", "references.csv", "heap_duplicates.csv"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        remove(file(names[i]));
    rmdir(dir);
    return check_summary();
}
