/*
 * protocol_drag.h - the drag part of the wire protocol (protocol.h).
 *
 * Owns: the request that turns drag mode on or off (HT_MSG_DRAG_REQ), the
 * state of drag mode (HT_MSG_DRAG_STATE: what is instrumented, what was left
 * alone and why, how many samples could be tracked) and the rows of drag
 * figures per allocation site (HT_MSG_DRAG_ROWS). Pure: any thread;
 * protocol.c validates these bodies.
 *
 * Drag (Röjemo and Runciman's lag, drag, void and use; docs/drag.md): a
 * sampled object whose class is in the filter is tracked for its last use,
 * that is the last entry into one of its instance methods; its death comes
 * from the live tracking. What happens between two collections is not seen,
 * so drag is an interval: drag_lo counts from the last use to the last time
 * the object was seen alive (a collection, or its allocation), drag_hi to the
 * collection that found it dead. All byte-second figures are estimates,
 * weighted as the allocation rows' bytes are (estimate.h): a sample stands
 * for its estimated bytes.
 *
 * Rows are cumulative since drag mode was first turned on in the agent's run,
 * like the allocation rows: a viewer keeps the last copy of each. Their diff
 * fields count what came while the mark ran (frozen at End, 0 without a
 * mark). Objects count in a row when they die (dead, void, the byte-seconds
 * and the histogram); samples and tracked count when they are sampled.
 */
#ifndef HEAPTOP_PROTOCOL_DRAG_H
#define HEAPTOP_PROTOCOL_DRAG_H

#include <stdint.h>

#include "wire.h"

/* The longest filter: class-name prefixes separated by ':'. */
#define HT_DRAG_FILTER_MAX 1024u
/* Histogram of drag times (drag_hi) per site: bucket 0 below 10 ms, bucket k
 * (1..14) from 10·2^(k-1) ms up to 10·2^k ms, bucket 15 from 163.84 s on. */
#define HT_DRAG_HIST         16
#define HT_DRAG_HIST_BASE_MS 10u
/* The bucket of a drag time in nanoseconds. */
int ht_drag_hist_bucket(uint64_t drag_ns);
/* A bucket's lower bound in milliseconds (0 for bucket 0). */
uint64_t ht_drag_hist_lo_ms(int bucket);

/* Checks a filter as the agent and the viewer read it: prefixes of Java
 * class names in dotted form ("org.h2." or "org.h2"), separated by ':', each
 * a run of letters, digits, '_', '$' and '.', none naming the JDK's own
 * packages (java., javax., jdk., sun., com.sun.: the helper's touch uses
 * java.lang.ref and java.util.concurrent.atomic itself, so instrumenting
 * the JDK would recurse, and the JDK's classes load before the helper can
 * be defined). "" or "off" means
 * off. 0 if good, else -1 with one line naming the bad part in err. */
int ht_drag_filter_check(const char *filter, char *err, size_t errn);
/* 1 when a class's dotted name starts with one of the filter's prefixes. */
int ht_drag_filter_matches(const char *filter, const char *dotted_name);

typedef struct ht_drag_state_rec {
    uint8_t on;            /* 1 while drag mode is on */
    uint32_t slots;        /* tracked objects per instrumented class at once (K) */
    uint32_t classes;      /* classes instrumented now */
    uint32_t methods;      /* instance methods with the call injected */
    uint32_t skipped_long; /* methods left alone: the call would pass the 64 KB code limit */
    uint32_t skipped_attr; /* methods left alone: a Code attribute the rewriter cannot fix */
    uint32_t failed;       /* classes of the filter left alone: malformed, refused by the VM */
    uint32_t hot;          /* classes too hot to watch (agent/drag_guard.h): not tracked in */
    uint64_t t_on_ms;      /* agent time drag mode was last turned on (0: never) */
    uint64_t samples;      /* samples of a filter class since drag mode was first turned on */
    uint64_t tracked;      /* of them, tracked for last use */
    uint64_t untracked;    /* of them, not tracked: every slot of their class was taken, or a
                            * class of their chain was too hot to watch */
    uint64_t tracking;     /* objects tracked now (alive or not yet found dead) */
    ht_str filter;         /* the filter in force, or the last one */
    ht_str why;            /* why drag mode is off or failed; while on, the classes too hot
                            * to watch (a few named); "" when all is well */
} ht_drag_state_rec;

typedef struct ht_drag_row_rec {
    uint32_t trace_id;
    uint32_t class_id;
    uint64_t samples;            /* sampled objects of the site (class in the filter) */
    uint64_t tracked;            /* of them, tracked for last use */
    uint64_t dead;               /* tracked, found dead: their figures below */
    uint64_t void_;              /* of the dead, never used after construction */
    double bytes;                /* estimated bytes of the dead */
    double drag_lo;              /* estimated byte-seconds, lower bound */
    double drag_hi;              /* estimated byte-seconds, upper bound */
    double lag;                  /* allocation to first use, byte-seconds (used objects) */
    double use;                  /* first use to last use, byte-seconds */
    uint32_t hist[HT_DRAG_HIST]; /* the dead by drag time (drag_hi), objects */
    uint64_t diff_samples, diff_tracked, diff_dead, diff_void;
    double diff_bytes, diff_drag_lo, diff_drag_hi, diff_lag, diff_use;
} ht_drag_row_rec;
#define HT_DRAG_ROW_WIRE_SIZE (8u + 4u * 8u + 5u * 8u + HT_DRAG_HIST * 4u + 4u * 8u + 5u * 8u)

/* DRAG_REQ: the filter, "" for off. */
void ht_enc_drag_req(ht_buf *b, uint64_t seq, const char *filter);
void ht_enc_drag_state(ht_buf *b, const ht_drag_state_rec *s, const char *filter, const char *why);
void ht_dec_drag_state(ht_reader *r, ht_drag_state_rec *s);
void ht_enc_drag_row(ht_buf *b, const ht_drag_row_rec *row);
void ht_dec_drag_row(ht_reader *r, ht_drag_row_rec *row);

/* protocol.c's check of a drag message's body (type HT_MSG_DRAG_*): reads it
 * all, setting r->failed on anything out of range. */
void ht_drag_validate_body(int type, ht_reader *r);

#endif
