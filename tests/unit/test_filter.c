/* The filter syntax of seed 003. */
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
    return check_summary();
}
