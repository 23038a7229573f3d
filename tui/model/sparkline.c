/* sparkline.c - see sparkline.h. */
#include "sparkline.h"

#include <string.h>

static const char *const UTF8_LEVELS[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                           "\u2585", "\u2586", "\u2587", "\u2588"};
static const char ASCII_LEVELS[8] = {'_', '.', '-', '=', '+', '*', '#', '@'};

size_t ht_sparkline(const double *v, size_t n, size_t width, double max, int utf8, char *out,
                    size_t outn)
{
    if (outn == 0) return 0;
    out[0] = '\0';
    size_t start = n > width ? n - width : 0;
    if (max <= 0)
        for (size_t i = start; i < n; i++)
            if (v[i] > max) max = v[i];
    size_t len = 0, cells = 0;
    for (size_t i = start; i < n; i++) {
        int level = 0;
        if (max > 0 && v[i] > 0) {
            level = (int)(v[i] / max * 7.0 + 0.5);
            if (level > 7) level = 7;
            if (level < 0) level = 0;
        }
        const char *cell = utf8 ? UTF8_LEVELS[level] : (const char[]){ASCII_LEVELS[level], 0};
        size_t cl = strlen(cell);
        if (len + cl + 1 > outn) break;
        memcpy(out + len, cell, cl);
        len += cl;
        cells++;
    }
    out[len] = '\0';
    return cells;
}
