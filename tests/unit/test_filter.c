/* The filter syntax: comma-separated terms, '!' to exclude (filter.h). */
#include "check.h"
#include "filter.h"

#include <string.h>

int main(void)
{
    ht_filter f;
    char err[128];
    CHECK(ht_filter_parse(&f, "java., !.io., demo.", err, sizeof err) == 0);
    CHECK(f.ninclude == 2 && f.nexclude == 1 && ht_filter_active(&f));
    CHECK(ht_filter_match(&f, "java.lang.String"));
    CHECK(ht_filter_match(&f, "demo.Cache$Entry"));
    CHECK(!ht_filter_match(&f, "java.io.File"));
    CHECK(!ht_filter_match(&f, "org.example.Foo"));
    CHECK(!ht_filter_match(&f, "byte[]"));
    /* case-sensitive, substring anywhere */
    CHECK(ht_filter_parse(&f, "String", err, sizeof err) == 0);
    CHECK(ht_filter_match(&f, "java.lang.String") && !ht_filter_match(&f, "java.lang.string"));
    /* excludes only: everything else passes */
    CHECK(ht_filter_parse(&f, "!java.", err, sizeof err) == 0);
    CHECK(ht_filter_match(&f, "byte[]") && !ht_filter_match(&f, "java.util.HashMap"));
    /* empty and blank filters match everything */
    CHECK(ht_filter_parse(&f, "", err, sizeof err) == 0 && !ht_filter_active(&f));
    CHECK(ht_filter_match(&f, "anything"));
    CHECK(ht_filter_parse(&f, " , ,", err, sizeof err) == 0 && !ht_filter_active(&f));
    CHECK(ht_filter_parse(&f, NULL, err, sizeof err) == 0 && ht_filter_match(&f, "x"));
    /* a bare '!' is an error that names the fix */
    CHECK(ht_filter_parse(&f, "java., !", err, sizeof err) == -1 && strstr(err, "!.io."));
    CHECK(!ht_filter_active(&f));
    CHECK(strcmp((ht_filter_parse(&f, "a,b", err, sizeof err), f.text), "a,b") == 0);
    /* one spelling of class names (Java's), either spelling in a filter: the
     * JVM's descriptor form finds the Java name, the Java name itself too */
    CHECK(ht_filter_parse(&f, "[I", err, sizeof err) == 0);
    /* a substring, as any term: int[][] contains int[], as [[I contained [I */
    CHECK(ht_filter_match(&f, "int[]") && ht_filter_match(&f, "int[][]") &&
          !ht_filter_match(&f, "java.lang.Integer"));
    CHECK(ht_filter_parse(&f, "int[]", err, sizeof err) == 0 && ht_filter_match(&f, "int[]"));
    CHECK(ht_filter_parse(&f, "[Ljava.lang.Object;, ![[B", err, sizeof err) == 0);
    CHECK(ht_filter_match(&f, "java.lang.Object[]") && ht_filter_match(&f, "java.lang.Object[][]"));
    CHECK(!ht_filter_match(&f, "java.lang.Object"));
    CHECK(ht_filter_parse(&f, "!byte[][]", err, sizeof err) == 0 &&
          !ht_filter_match(&f, "byte[][]"));
    CHECK(ht_filter_parse(&f, "![[B", err, sizeof err) == 0);
    CHECK(!ht_filter_match(&f, "byte[][]") && ht_filter_match(&f, "byte[]"));
    CHECK(ht_filter_parse(&f, "[Ljava.util.Map", err, sizeof err) == 0 &&
          ht_filter_match(&f, "java.util.Map[]"));
    /* "=name": the whole name only (the Behaviour screen's C), also
     * excluding and as a descriptor */
    CHECK(ht_filter_parse(&f, "=java.util.ArrayList, =demo.A", err, sizeof err) == 0);
    CHECK(ht_filter_match(&f, "java.util.ArrayList") && ht_filter_match(&f, "demo.A"));
    CHECK(!ht_filter_match(&f, "java.util.ArrayList$Itr") && !ht_filter_match(&f, "demo.AB") &&
          !ht_filter_match(&f, "x.java.util.ArrayList"));
    CHECK(ht_filter_parse(&f, "java.util.ArrayList, !=java.util.ArrayList", err, sizeof err) == 0);
    CHECK(!ht_filter_match(&f, "java.util.ArrayList") &&
          ht_filter_match(&f, "java.util.ArrayList$Itr"));
    CHECK(ht_filter_parse(&f, "=[I", err, sizeof err) == 0 && ht_filter_match(&f, "int[]") &&
          !ht_filter_match(&f, "int[][]"));
    CHECK(ht_filter_parse(&f, "=", err, sizeof err) == -1 && strstr(err, "=java.util.ArrayList"));
    /* the text is kept as typed */
    CHECK(ht_filter_parse(&f, "[I", err, sizeof err) == 0 && strcmp(f.text, "[I") == 0);
    /* every one of 32 terms a descriptor still fits */
    char many[HT_FILTER_MAX_TEXT] = "";
    for (int i = 0; i < 32 && strlen(many) + 4 < sizeof many; i++)
        strcat(many, i ? ",[[Z" : "[[Z");
    CHECK(ht_filter_parse(&f, many, err, sizeof err) == 0 && ht_filter_match(&f, "boolean[][]"));
    return check_summary();
}
