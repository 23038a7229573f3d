/*
 * options.h - the agent's option string: "key=value,key=value".
 *
 * Owns: parsing and validation, and the help text. Pure: no JVMTI, no I/O except
 * writing the help text where asked. A bad option is an error message that names
 * the key and shows the valid form; the agent then refuses to load. In common/
 * because heaptop checks the options it attaches an agent with (heaptop PID
 * --agent-opts) with this same parser before it attaches; any thread.
 */
#ifndef HEAPTOP_OPTIONS_H
#define HEAPTOP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipc_path.h"
#include "protocol.h" /* HT_MAX_INTERVAL */

#define HT_DEFAULT_INTERVAL     (512u * 1024u)
#define HT_BUDGET_DEFAULT       100u /* 1% of the CPU */
#define HT_DEFAULT_DEPTH        64u
#define HT_MAX_DEPTH            2048u
#define HT_DEFAULT_MAX_TRACES   200000u
#define HT_MAX_MAX_TRACES       4000000u
#define HT_DEFAULT_BUFFER       65536u
#define HT_MIN_BUFFER           64u
#define HT_MAX_BUFFER           (16u << 20)
#define HT_DEFAULT_VIEWER_QUEUE 256u
#define HT_MIN_VIEWER_QUEUE     16u
#define HT_MAX_VIEWER_QUEUE     8192u
/* drag mode's cost guard (agent/drag_guard.h): looks a second through the
 * tracked objects of all classes before the hottest class is let go */
#define HT_DRAG_BUDGET_DEFAULT 10000000ull
#define HT_DRAG_BUDGET_MAX     1000000000000ull
/* Room for ht_options_format's text: the fixed part, ipc, listen= with its
 * key, and the longest drag= filter (HT_DRAG_FILTER_MAX) */
#define HT_OPTIONS_TEXT_MAX 2048u

typedef struct ht_options {
    uint64_t interval;         /* mean bytes between samples; 0 = every allocation */
    uint32_t depth;            /* frames kept per stack */
    uint32_t max_traces;       /* distinct stacks kept before the overflow bucket */
    uint32_t buffer;           /* sample events queued for the collector */
    uint32_t viewer_queue;     /* stream messages a slow viewer may lag behind */
    int live;                  /* track which sampled objects are still alive */
    uint32_t budget_x100;      /* CPU share the agent may use, 1/100 %; 0 = fixed interval */
    int help;                  /* print the option list */
    char ipc[HT_IPC_PATH_MAX]; /* socket base path; empty = default for the pid */
    char listen_host[64];      /* listen=: also on TCP (ipc_path.h); "" = not asked */
    unsigned listen_port;
    char key[256]; /* key=@FILE: the key for listen= (auth.h); "" = BASE.key, made anew */
    int cpu;       /* ht_cpu_mode (protocol_cpu.h): CPU sampling */
    uint32_t cpu_interval_us; /* the CPU sampler's tick */
    /* drag=PREFIX[:PREFIX...]: drag mode on from the start (protocol_drag.h's
     * filter, checked; needs live=on); "" = off */
    char drag[HT_DRAG_FILTER_MAX + 1];
    uint64_t drag_budget; /* drag_budget=N|off: the guard's looks a second; 0 = no guard */
} ht_options;

void ht_options_defaults(ht_options *o);
/* Parse s (may be NULL or empty). 0 on success, -1 with a one-line message in err. */
int ht_options_parse(const char *s, ht_options *o, char *err, size_t errn);
/* Canonical "key=value,..." text of the options in force. */
void ht_options_format(const ht_options *o, char *out, size_t n);
void ht_options_help(FILE *f);

#endif
