/*
 * screen_chooser.h - what the loop tells the chooser (the list of JVMs that
 * `heaptop` with no argument opens on): a new list from discovery.
 * UI thread.
 */
#ifndef HEAPTOP_SCREEN_CHOOSER_H
#define HEAPTOP_SCREEN_CHOOSER_H

#include "jvms.h"
#include "screen.h"

extern const ht_screen ht_screen_chooser;

/* The JVMs found now: the chooser takes l's rows (l is left empty), or,
 * when err is set, keeps what it had and says err. */
void ht_screen_chooser_set(void *self, ht_jvm_list *l, const char *err);

#endif
