/*
 * sparkline.h - a series of numbers as one line of block characters.
 *
 * Owns: scaling a series into 8 levels and writing it with the Unicode blocks
 * "▁▂▃▄▅▆▇█" or, when the terminal is not UTF-8 (or --ascii), with "_.-=+*#@".
 * Always from zero, never between a series' minimum and maximum: a step is as
 * tall as the change is against the whole value (a 0.1% change is no step),
 * and a constant series is drawn the same on every line (full height, or the
 * bottom when it is 0).
 * Pure: writes into a caller's buffer.
 */
#ifndef HEAPTOP_SPARKLINE_H
#define HEAPTOP_SPARKLINE_H

#include <stddef.h>

/* Render the last `width` values of v[0..n) scaled to [0, max] (max <= 0: the
 * series' own maximum). Output is NUL-terminated; returns the cells written.
 * Needs up to 3*width+1 bytes in UTF-8 mode. */
size_t ht_sparkline(const double *v, size_t n, size_t width, double max, int utf8, char *out,
                    size_t outn);

#endif
