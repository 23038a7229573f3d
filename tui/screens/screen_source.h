/*
 * screen_source.h - the Source screen, as the loop hands it a file: asked
 * for (what is looked for, while a job reads it), then found or not
 * (app_source.c, the job's done()). The way in for every screen is
 * ht_host_open_source (screen.h). UI thread.
 */
#ifndef HEAPTOP_SCREEN_SOURCE_H
#define HEAPTOP_SCREEN_SOURCE_H

#include <stdint.h>

#include "screen.h"
#include "source_find.h"

extern const ht_screen ht_screen_source;

/* A file is being looked for: frame (its name, "pkg.Class.method:42"), at
 * line; seq tells this request from the ones before it. */
void ht_screen_source_asked(void *state, uint64_t seq, const char *frame, int32_t line);
/* Request seq's answer: the file (taken over; f is left empty), or NULL and
 * why not in err. An answer to an older request is dropped. */
void ht_screen_source_answer(void *state, uint64_t seq, ht_source_found *f, const char *err);

#endif
