/* Sparklines: scaling, width, UTF-8 and ASCII forms. */
#include "check.h"
#include "sparkline.h"

#include <string.h>

int main(void)
{
    double v[] = {0, 1, 2, 3, 4, 5, 6, 7};
    char out[128];
    CHECK(ht_sparkline(v, 8, 8, 7, 0, out, sizeof out) == 8 && strcmp(out, "_.-=+*#@") == 0);
    CHECK(ht_sparkline(v, 8, 8, 0, 1, out, sizeof out) == 8);
    CHECK(strcmp(out, "▁▂▃▄▅▆▇█") == 0);
    CHECK(ht_sparkline(v, 8, 3, 0, 0, out, sizeof out) == 3 && strcmp(out, "*#@") == 0);
    CHECK(ht_sparkline(v, 8, 4, 14, 0, out, sizeof out) == 4 && strcmp(out, "-==+") == 0);
    double flat[] = {0, 0, 0};
    CHECK(ht_sparkline(flat, 3, 10, 0, 0, out, sizeof out) == 3 && strcmp(out, "___") == 0);
    CHECK(ht_sparkline(v, 0, 10, 0, 0, out, sizeof out) == 0 && out[0] == 0);
    CHECK(ht_sparkline(v, 8, 8, 0, 1, out, 7) == 2); /* never overflows the buffer */
    double big[] = {100, 50};
    CHECK(ht_sparkline(big, 2, 2, 10, 0, out, sizeof out) == 2 && strcmp(out, "@@") == 0);

    /* scaled from zero: a constant is drawn the same at any size, a 0.1%
     * change is no step, a halving is half the height */
    const double sizes[] = {1, 23, 4376, 512.0 * 1024 * 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double c[] = {sizes[i], sizes[i], sizes[i]};
        CHECK(ht_sparkline(c, 3, 3, 0, 0, out, sizeof out) == 3 && strcmp(out, "@@@") == 0);
        CHECK(ht_sparkline(c, 3, 3, 0, 1, out, sizeof out) == 3 && strcmp(out, "███") == 0);
    }
    double classes[] = {4376, 4376, 4378, 4382, 4382};
    CHECK(ht_sparkline(classes, 5, 5, 0, 0, out, sizeof out) == 5 && strcmp(out, "@@@@@") == 0);
    double half[] = {50, 100};
    CHECK(ht_sparkline(half, 2, 2, 0, 0, out, sizeof out) == 2 && strcmp(out, "+@") == 0);
    return check_summary();
}
