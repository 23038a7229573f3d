/* ui.c - see ui.h. */
#include "ui.h"

#include "site_tree.h" /* ht_text_width */

#include <langinfo.h>
#include <math.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

int ht_ui_start(ht_ui *ui, int force_ascii)
{
    memset(ui, 0, sizeof *ui);
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    ui->utf8 = !force_ascii && cs && strcmp(cs, "UTF-8") == 0;
    /* A short ESCDELAY: Esc answers at once, yet arrow keys over SSH still parse. */
    if (!getenv("ESCDELAY")) setenv("ESCDELAY", "25", 1);
    if (!initscr()) return -1;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    const char *nc = getenv("NO_COLOR");
    ui->color = has_colors() && !(nc && *nc);
    if (ui->color) {
        start_color();
        use_default_colors();
        init_pair(HT_C_HEADER, COLOR_CYAN, -1);
        init_pair(HT_C_VALUE, COLOR_WHITE, -1);
        init_pair(HT_C_BAR, COLOR_GREEN, -1);
        init_pair(HT_C_KEY, COLOR_WHITE, COLOR_BLACK);
        init_pair(HT_C_KEYLABEL, COLOR_BLACK, COLOR_CYAN);
        init_pair(HT_C_TITLE, COLOR_BLACK, COLOR_GREEN);
        init_pair(HT_C_SELECTED, COLOR_BLACK, COLOR_CYAN);
        init_pair(HT_C_DIM, COLOR_BLUE, -1);
        init_pair(HT_C_WARN, COLOR_RED, -1);
        init_pair(HT_C_GOOD, COLOR_GREEN, -1);
        init_pair(HT_C_MARK, COLOR_YELLOW, -1);
        /* grey is bright black where there are 16 colours; else dim white */
        init_pair(HT_C_STALE, COLORS >= 16 ? 8 : COLOR_WHITE, -1);
    }
    getmaxyx(stdscr, ui->rows, ui->cols);
    return 0;
}

void ht_ui_stop(void)
{
    if (!isendwin()) {
        curs_set(1);
        endwin();
    }
}

int ht_ui_attr(const ht_ui *ui, ht_color c)
{
    if (ui->color) {
        int a = c == HT_C_NORMAL ? A_NORMAL : COLOR_PAIR(c);
        if (c == HT_C_VALUE || c == HT_C_KEY || c == HT_C_WARN) a |= A_BOLD;
        if (c == HT_C_STALE && COLORS < 16) a |= A_DIM;
        return a;
    }
    switch (c) {
    case HT_C_SELECTED:
    case HT_C_TITLE:
    case HT_C_KEYLABEL:
        return A_REVERSE;
    case HT_C_VALUE:
    case HT_C_KEY:
    case HT_C_WARN:
    case HT_C_MARK:
        return A_BOLD;
    case HT_C_DIM:
    case HT_C_STALE:
        return A_DIM;
    default:
        return A_NORMAL;
    }
}

void ht_ui_put(WINDOW *w, int y, int x, int width, int attr, const char *text, int pad)
{
    if (width <= 0) return;
    wattrset(w, attr);
    /* count display columns roughly by UTF-8 lead bytes */
    int cols = 0;
    const unsigned char *p = (const unsigned char *)text;
    const unsigned char *end = p;
    while (*end && cols < width) {
        end++;
        while ((*end & 0xC0) == 0x80)
            end++;
        cols++;
    }
    mvwaddnstr(w, y, x, text, (int)(end - p));
    if (pad)
        for (int i = cols; i < width; i++)
            waddch(w, ' ');
    wattrset(w, A_NORMAL);
}

/* The byte length of the first `cols` columns of text. */
static size_t bytes_of_cols(const char *text, int cols)
{
    size_t i = 0;
    for (int c = 0; text[i] && c < cols; c++) {
        i++;
        while (((unsigned char)text[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

int ht_ui_fit(const ht_ui *ui, const char *text, int width, char *out, size_t n)
{
    if (n == 0) return 0;
    if (ht_text_width(text) <= width) {
        snprintf(out, n, "%s", text);
        return 0;
    }
    const char *sign = ui && ui->utf8 ? "\u2026" : "...";
    int room = width - ht_text_width(sign);
    if (room < 0) room = 0;
    size_t cut = bytes_of_cols(text, room);
    /* back to the end of the last word that fits whole (the cut lands in a
     * word when the next byte is not a space) */
    if (text[cut] != ' ') {
        size_t w = cut;
        while (w > 0 && text[w - 1] != ' ')
            w--;
        if (w > 0) cut = w;
    }
    while (cut > 0 && text[cut - 1] == ' ')
        cut--;
    snprintf(out, n, "%.*s%s", (int)cut, text, sign);
    return 1;
}

void ht_ui_bytes(double v, ht_unit unit, char *out, size_t n)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double a = fabs(v);
    int u = 0;
    if (unit == HT_UNIT_AUTO) {
        while (a >= 1024.0 * 10 && u < 4) {
            a /= 1024.0;
            u++;
        }
    } else {
        for (u = 0; u < (int)unit - HT_UNIT_B && u < 4; u++)
            a /= 1024.0;
    }
    /* 99.95 and up would print as "100.0": whole numbers from there */
    int whole = u == 0 || a >= 99.95;
    const char *sign = v < 0 && (whole ? a >= 0.5 : a >= 0.05) ? "-" : "";
    if (whole)
        snprintf(out, n, "%s%.0f %s", sign, a, names[u]);
    else
        snprintf(out, n, "%s%.1f %s", sign, a, names[u]);
}

int ht_ui_bytes_width(double max_abs, ht_unit unit, int neg)
{
    if (unit == HT_UNIT_AUTO) return 9 + (neg ? 1 : 0); /* "10239 KiB" is the widest */
    char b[64];
    ht_ui_bytes(max_abs, unit, b, sizeof b);
    int w = (int)strlen(b);
    int small = unit == HT_UNIT_B ? 3 : 8; /* "0 B", "99.9 KiB" */
    return (w > small ? w : small) + (neg ? 1 : 0);
}

void ht_ui_bytes_fit(double v, ht_unit unit, int width, char *out, size_t n)
{
    ht_ui_bytes(v, unit, out, n);
    if ((int)strlen(out) > width) ht_ui_bytes(v, HT_UNIT_AUTO, out, n);
}

void ht_ui_count(double v, char *out, size_t n)
{
    if (v >= 1e9)
        snprintf(out, n, "%.1fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(out, n, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(out, n, "%.0fk", v / 1e3);
    else
        snprintf(out, n, "%.0f", v);
}

int ht_ui_check_tty(char *err, size_t n)
{
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) return 0;
    snprintf(err, n, "standard %s is not a terminal; use 'heaptop record' for a headless recording",
             isatty(STDIN_FILENO) ? "output" : "input");
    return -1;
}

int ht_ui_check_terminal(char *err, size_t n)
{
    const char *term = getenv("TERM");
    const char *hint = "use 'heaptop record' for a headless recording";
    int rc = 0;
    if (!term || !*term) {
        snprintf(err, n, "TERM is not set; %s", hint);
        return -1;
    }

    if (setupterm(NULL, STDOUT_FILENO, &rc) != OK) {
        snprintf(err, n, "terminal type '%s' is unknown to terminfo; %s", term, hint);
        return -1;
    }
    /* a full-screen view needs to move the cursor (dumb, lpr and friends cannot) */
    const char *cup = tigetstr("cup");
    int ok = cup && cup != (const char *)-1;
    del_curterm(cur_term);
    cur_term = NULL;
    if (!ok) {
        snprintf(err, n, "terminal '%s' cannot move the cursor; %s", term, hint);
        return -1;
    }
    return 0;
}
