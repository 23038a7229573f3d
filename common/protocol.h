/*
 * protocol.h - the heaptop wire protocol, shared by the agent and the viewer.
 *
 * Owns: message framing (header), the record layouts of every message type, and
 * their encoders/decoders. One nng message carries exactly one protocol message:
 *
 *   u32 magic "HTOP" | u16 version | u16 type | u32 body_len | u64 seq | body
 *
 * All integers little-endian, strings are u32 length + bytes. `seq` is the
 * stream sequence number on the event socket (a viewer counts gaps with it) and
 * the request id on the control socket (the agent answers a repeated id from a
 * cache instead of running the command twice: nng's REQ resends on reconnect).
 *
 * The decoder never trusts the input: ht_msg_open() checks magic, version, type
 * and that body_len matches what arrived; ht_msg_validate() walks the whole body
 * of a known type and rejects it unless every record is complete and the body
 * is consumed exactly. After validation the typed readers cannot fail.
 * Bump HT_PROTOCOL_VERSION on any change of layout or meaning.
 */
#ifndef HEAPTOP_PROTOCOL_H
#define HEAPTOP_PROTOCOL_H

#include "wire.h"

#include <stdint.h>

#define HT_MAGIC 0x504f5448u /* "HTOP" as little-endian bytes */
/* 11: drag state counts the classes too hot to watch; 10: drag; 9: a SYNC ends with a HELLO; 8: CPU
 * sampling; 7: telemetry.agent_cpu_ms_per_s */
#define HT_PROTOCOL_VERSION 11
#define HT_HEADER_SIZE      20
/* Largest message either side accepts (a sync of a huge run stays far below). */
#define HT_MAX_MESSAGE (512u << 20)
/* Largest control request the agent accepts (requests are tiny). */
#define HT_MAX_REQUEST (64u << 10)
/* Largest sampling interval (bytes) the agent takes, as an option or in
 * SET_INTERVAL: SetHeapSamplingInterval takes a jint. Viewers check it first. */
#define HT_MAX_INTERVAL 0x7fffffffu
/* Largest CPU budget (budget=P%), in hundredths of a percent: 50%. */
#define HT_BUDGET_MAX_X100 5000u

/* Reserved ids. */
#define HT_TRACE_NONE     0u          /* no stack (e.g. GetStackTrace failed) */
#define HT_TRACE_OVERFLOW 0xffffffffu /* trace table full: reported, never merged */
#define HT_CLASS_UNKNOWN  0u
#define HT_LINE_UNKNOWN   (-1)
#define HT_LINE_NATIVE    (-2)

/*
 * Every message, one line each: X(NAME, number, kind, flags). The enum, the
 * names, the decoder's check that a number is a message, which kind a
 * socket may receive, and the agent's dispatch of requests all come from
 * here. Kinds: REQ (viewer -> agent, control socket), REP (the agent's
 * reply), STREAM (agent -> viewers, PUB; also embedded in SYNC_REP). Flags
 * (requests): HT_MSGF_COMMAND, run as a command (ACK or ERROR, the reply
 * kept for a repeated sequence number); HT_MSGF_VM, it needs a JVMTI call,
 * so it is refused while a heap dump holds the VM. A message's body is
 * decoded and checked in protocol.c (validate_body).
 */
enum { HT_MSGF_COMMAND = 1u << 0, HT_MSGF_VM = 1u << 1 };
typedef enum ht_msg_kind { HT_MSGK_REQ = 1, HT_MSGK_REP, HT_MSGK_STREAM } ht_msg_kind;

#define HT_MSG_LIST(X)                                                                             \
    X(HELLO_REQ, 1, REQ, 0)                                                                        \
    X(SYNC_REQ, 2, REQ, 0)                                                                         \
    X(SET_INTERVAL_REQ, 3, REQ, HT_MSGF_COMMAND | HT_MSGF_VM) /* u64 bytes */                      \
    X(PAUSE_REQ, 4, REQ, HT_MSGF_COMMAND | HT_MSGF_VM)                                             \
    X(RESUME_REQ, 5, REQ, HT_MSGF_COMMAND | HT_MSGF_VM)                                            \
    /* u8 ht_mark_op; ACK carries the new ht_mark_state */                                         \
    X(MARK_REQ, 6, REQ, HT_MSGF_COMMAND)                                                           \
    /* u32 budget in 1/100 % of CPU (0 = off); ACK carries it */                                   \
    X(BUDGET_REQ, 7, REQ, HT_MSGF_COMMAND | HT_MSGF_VM)                                            \
    /* u8 ht_dump_flags; ACK carries the new dump's id at once, its outcome                        \
     * comes as HEAP_DUMP on the stream (a dump takes seconds: no viewer                           \
     * waits on a reply) */                                                                        \
    X(HEAP_DUMP_REQ, 8, REQ, HT_MSGF_COMMAND)                                                      \
    /* no body: stop sampling, release what the agent holds, close the                             \
     * sockets (after the ACK); the library stays loaded and a new attach                          \
     * starts it again */                                                                          \
    X(DETACH_REQ, 9, REQ, HT_MSGF_COMMAND | HT_MSGF_VM)                                            \
    /* over TCP only, before anything else (auth.h): u8[32] the viewer's nonce */                  \
    X(AUTH_REQ, 10, REQ, 0)                                                                        \
    /* u8[32] HMAC(K, "heaptop viewer" | cn | sn); ACK, or ERROR and the                           \
     * connection closed */                                                                        \
    X(AUTH_PROOF_REQ, 11, REQ, 0)                                                                  \
    /* u8 ht_cpu_mode, u32 interval in microseconds (0: keep it); ACK                              \
     * carries the mode now in force, ERROR says why a mode is refused */                          \
    X(CPU_REQ, 12, REQ, HT_MSGF_COMMAND | HT_MSGF_VM)                                              \
    /* str filter (protocol_drag.h), "" for off; ACK carries the classes                           \
     * instrumented, ERROR says why drag mode is refused */                                        \
    X(DRAG_REQ, 13, REQ, HT_MSGF_COMMAND | HT_MSGF_VM)                                             \
    X(HELLO_REP, 16, REP, 0)                                                                       \
    X(SYNC_REP, 17, REP, 0)                                                                        \
    X(ACK, 18, REP, 0)                                                                             \
    X(ERROR, 19, REP, 0)                                                                           \
    /* u8[32] the agent's nonce sn, u8[32] the stream's salt,                                      \
     * u8[32] HMAC(K, "heaptop agent" | cn | sn) */                                                \
    X(AUTH_REP, 20, REP, 0)                                                                        \
    X(CLASSES, 32, STREAM, 0)                                                                      \
    X(METHODS, 33, STREAM, 0)                                                                      \
    X(TRACES, 34, STREAM, 0)                                                                       \
    /* 35 and 36 were thread names and raw sample events, which no viewer used */                  \
    X(AGGS, 37, STREAM, 0)                                                                         \
    X(TELEMETRY, 38, STREAM, 0)                                                                    \
    X(BYE, 39, STREAM, 0)                                                                          \
    /* the mark's state; on every change and in every sync */                                      \
    X(MARK, 40, STREAM, 0)                                                                         \
    /* a heap dump's state: when it starts, once a second while it runs,                           \
     * when it ends; the running one and the last few ended ones in every                          \
     * sync */                                                                                     \
    X(HEAP_DUMP, 41, STREAM, 0)                                                                    \
    /* CPU sampling (protocol_cpu.h): the threads the CPU sampler saw, and                         \
     * the CPU rows per (thread, stack); changed ones on the stream, all in                        \
     * every sync */                                                                               \
    X(CPU_THREADS, 42, STREAM, 0)                                                                  \
    X(CPU_ROWS, 43, STREAM, 0)                                                                     \
    /* drag (protocol_drag.h): drag mode's state, on every change, once a                          \
     * second while it is on, and in every sync; the rows per allocation                           \
     * site, changed ones on the stream, all in every sync */                                      \
    X(DRAG_STATE, 44, STREAM, 0)                                                                   \
    X(DRAG_ROWS, 45, STREAM, 0)

typedef enum ht_msg_type {
#define HT_MSG_ENUM(name, number, kind, flags) HT_MSG_##name = number,
    HT_MSG_LIST(HT_MSG_ENUM)
#undef HT_MSG_ENUM
} ht_msg_type;

/* A message type's line of HT_MSG_LIST: its name ("SYNC_REQ"), kind and
 * flags; NULL for a number that is no message. */
typedef struct ht_msg_info {
    const char *name;
    ht_msg_kind kind;
    unsigned flags;
} ht_msg_info;
const ht_msg_info *ht_msg_info_of(int type);

/* The Begin / End / Continue mark: a stretch of the run, what was allocated
 * in it and how much the live set grew (the diff and growth columns). Kept by
 * the agent so that every viewer, `heaptop control` and `heaptop record` see
 * the same phase. */
typedef enum ht_mark_op { HT_MARK_BEGIN = 1, HT_MARK_END = 2, HT_MARK_CONTINUE = 3 } ht_mark_op;
typedef enum ht_mark_state {
    HT_MARK_NONE = 0,    /* no mark: diff and growth columns are blank */
    HT_MARK_RUNNING = 1, /* counting since Begin (or Continue) */
    HT_MARK_STOPPED = 2, /* frozen at End */
} ht_mark_state;

/* Heap dumps (HEAP_DUMP_REQ): the JVM writes an HPROF file into the agent's
 * private directory. Without HT_DUMP_ALL only live objects (after a full GC);
 * with HT_DUMP_KEEP the file outlives the JVM, else the agent removes it when
 * the JVM exits. The agent marks its live sampled objects in the dump
 * (heap_marker.h) unless HT_DUMP_PLAIN: a dump for other tools, which would
 * count the marker's references. (Protocol 5 added PLAIN and `marked`.) */
enum { HT_DUMP_ALL = 1, HT_DUMP_KEEP = 2, HT_DUMP_PLAIN = 4, HT_DUMP_FLAGS = 7 /* every flag */ };
typedef enum ht_dump_state {
    HT_DUMP_RUNNING = 1, /* being written */
    HT_DUMP_DONE = 2,    /* written: path, bytes, elapsed_ms */
    HT_DUMP_FAILED = 3,  /* not written (nothing left at path): error says why */
} ht_dump_state;

/* Error codes (decoder results and HT_MSG_ERROR codes). 0 is success. */
enum {
    HT_OK = 0,
    HT_ETRUNC = 1,    /* shorter than its header or its declared length */
    HT_EMAGIC = 2,    /* not a heaptop message */
    HT_EVERSION = 3,  /* another protocol version */
    HT_ETYPE = 4,     /* unknown message type */
    HT_ETOOBIG = 5,   /* larger than HT_MAX_MESSAGE */
    HT_EBODY = 6,     /* body malformed: a record incomplete or bytes left over */
    HT_EBADREQ = 7,   /* a request the agent cannot honour (bad value) */
    HT_EINTERNAL = 8, /* the agent failed (out of memory, JVMTI error) */
    HT_EBUSY = 9,     /* the agent is busy with a heap dump: try again once it ends */
    HT_ENOSPACE = 10, /* not enough disk space for a heap dump */
    HT_EAUTH = 11,    /* over TCP: the key was not proved (auth.h) */
};
const char *ht_strerror(int code);
const char *ht_msg_type_name(int type);

typedef struct ht_msg {
    uint16_t version;
    uint16_t type;
    uint64_t seq;
    const uint8_t *body;
    uint32_t body_len;
} ht_msg;

/* Parse and check the header of data[0..len). */
int ht_msg_open(const void *data, size_t len, ht_msg *out);
/* Walk the whole body of m; HT_OK only if it is well formed. */
int ht_msg_validate(const ht_msg *m);
/* Reader over the body. */
void ht_msg_reader(const ht_msg *m, ht_reader *r);

/* --- encoding: begin writes a header with a zero length, end patches it. --- */
size_t ht_msg_begin(ht_buf *b, uint16_t type, uint64_t seq);
void ht_msg_end(ht_buf *b, size_t start);
/* Stamp the sequence number of a message begun at start (when it is sent). */
void ht_msg_set_seq(ht_buf *b, size_t start, uint64_t seq);
/* For list messages: reserve the count, then patch it. */
size_t ht_list_begin(ht_buf *b);
void ht_list_end(ht_buf *b, size_t at, uint32_t count);

/* --- records --- */
typedef struct ht_hello {
    uint32_t pid;
    uint64_t start_epoch_ms;
    uint64_t interval;
    uint32_t depth;
    uint8_t live;
    uint8_t paused;
    uint32_t max_traces;
    uint32_t viewers; /* stream subscribers connected to the agent now */
    ht_str main_class;
    ht_str jdk_version;
    ht_str options;
    ht_str tcp;       /* listen=: where it listens over TCP, or why it does not; "" not asked */
    uint8_t cpu_mode; /* ht_cpu_mode in force (protocol_cpu.h) */
    uint32_t cpu_interval_us; /* the CPU sampler's configured tick */
} ht_hello;

typedef struct ht_class_rec {
    uint32_t id;
    ht_str name;
} ht_class_rec;

typedef struct ht_method_rec {
    uint32_t id;
    ht_str class_name;
    ht_str method_name;
    ht_str source_file;
} ht_method_rec;

typedef struct ht_frame_rec {
    uint32_t method_id;
    int32_t line;
} ht_frame_rec;
#define HT_FRAME_WIRE_SIZE 8u

/* A trace: frames follow as `depth` ht_frame_rec, leaf (allocating frame) first. */
typedef struct ht_trace_head {
    uint32_t id;
    uint16_t depth;
} ht_trace_head;

/* One (trace, class) row. LIVE: sampled objects a collection has proven alive
 * and not found dead since. YOUNG: tracked objects allocated since the last
 * collection the agent could rely on: neither proven alive nor dead yet, never
 * counted as live. diff_*: allocated while the mark ran; growth_*: live now
 * minus live at Begin (both frozen at End, 0 without a mark). dropped: samples
 * of this stack lost to a full queue (counted under the class the stack
 * allocated most recently), which its est_* figures do not include. */
typedef struct ht_agg_rec {
    uint32_t trace_id;
    uint32_t class_id;
    uint64_t samples;
    uint64_t live_samples;
    uint64_t young_samples;
    uint64_t dropped; /* samples taken here that the agent's full queue lost */
    double est_bytes;
    double est_instances;
    double live_est_bytes;
    double live_est_instances;
    double young_est_bytes;
    double young_est_instances;
    double diff_bytes;
    double diff_instances;
    double growth_bytes;
    double growth_instances;
} ht_agg_rec;

typedef struct ht_telemetry_rec {
    uint64_t t_ms; /* since the agent started */
    uint64_t heap_used;
    uint64_t heap_committed;
    uint64_t heap_max;
    uint64_t alloc_bytes; /* exact, from the VM; UINT64_MAX when unavailable */
    uint64_t gc_count;
    uint64_t gc_time_ms;
    double gc_pct; /* share of the last interval spent in GC, 0..100 */
    uint32_t threads;
    uint32_t classes;
    uint64_t threads_started;
    uint64_t samples;
    uint64_t dropped;
    uint64_t interval;
    uint8_t paused;
    uint64_t live_lag_ms;      /* how long finished GC pauses have waited to be reflected in LIVE */
    uint64_t live_as_of;       /* GC pauses (gc_count) the live figures reflect */
    uint64_t untracked;        /* samples not tracked for liveness (tracking cap reached) */
    uint64_t base_interval;    /* the configured interval: a budget raises `interval` above it */
    uint32_t budget_x100;      /* the CPU budget, 1/100 % (0 = off, the interval is fixed) */
    double agent_cpu_pct;      /* the agent's share of the process's CPU in the last second */
    double agent_cpu_ms_per_s; /* the same CPU, absolute: ms of CPU per second of wall time */
    uint8_t cpu_mode;          /* ht_cpu_mode in force (protocol_cpu.h) */
    uint32_t cpu_interval_us;  /* the CPU sampler's tick in force: a budget lengthens it */
    uint64_t cpu_samples;      /* CPU samples taken since the start (stacks and buckets) */
    uint64_t cpu_failed;       /* of those, samples without a stack (bracketed buckets) */
    double cpu_sampler_ms_per_s; /* the CPU sampler's own CPU: ms per second of wall time */
    double cpu_floor_ms_per_s;   /* of which inside JVMTI's GetStackTrace: the JVMTI floor */
} ht_telemetry_rec;

/* The mark: state, how long it has counted as of agent time t_ms. */
typedef struct ht_mark_rec {
    uint8_t state; /* ht_mark_state */
    uint64_t length_ms;
    uint64_t t_ms;
} ht_mark_rec;

/* One heap dump (HT_MSG_HEAP_DUMP). */
typedef struct ht_heap_dump_rec {
    uint64_t id;         /* 1, 2, ... per agent: the ACK of its HEAP_DUMP_REQ */
    uint8_t state;       /* ht_dump_state */
    uint8_t flags;       /* as asked: HT_DUMP_ALL, HT_DUMP_KEEP, HT_DUMP_PLAIN */
    uint64_t t_ms;       /* agent time of this report */
    uint64_t elapsed_ms; /* RUNNING: since it started; DONE, FAILED: how long the JVM took */
    uint64_t bytes;      /* DONE: the file's size */
    uint64_t heap_used;  /* the heap's used bytes when it was asked for */
    uint64_t marked;     /* DONE: sampled objects marked in it (heap_marker.h) */
    ht_str path;         /* the file (absolute when the agent's socket path is) */
    ht_str error;        /* FAILED: why, for the user */
} ht_heap_dump_rec;

/* Encoders append one record; list messages are ht_msg_begin + ht_list_begin +
 * records + ht_list_end + ht_msg_end. */
void ht_enc_hello(ht_buf *b, const ht_hello *h, const char *main_class, const char *jdk,
                  const char *options, const char *tcp);
void ht_enc_class(ht_buf *b, uint32_t id, const char *name);
void ht_enc_method(ht_buf *b, uint32_t id, const char *cls, const char *name, const char *src);
void ht_enc_trace_head(ht_buf *b, uint32_t id, uint16_t depth);
void ht_enc_frame(ht_buf *b, uint32_t method_id, int32_t line);
void ht_enc_agg(ht_buf *b, const ht_agg_rec *a);
void ht_enc_telemetry(ht_buf *b, const ht_telemetry_rec *t);
void ht_enc_mark(ht_buf *b, uint64_t seq, const ht_mark_rec *m); /* a whole HT_MSG_MARK */
/* A whole HT_MSG_HEAP_DUMP; d's path and error are ignored for the given strings. */
void ht_enc_heap_dump(ht_buf *b, uint64_t seq, const ht_heap_dump_rec *d, const char *path,
                      const char *error);

/* Decoders read one record from a validated body. */
void ht_dec_hello(ht_reader *r, ht_hello *h);
void ht_dec_class(ht_reader *r, ht_class_rec *c);
void ht_dec_method(ht_reader *r, ht_method_rec *m);
void ht_dec_trace_head(ht_reader *r, ht_trace_head *t);
void ht_dec_frame(ht_reader *r, ht_frame_rec *f);
void ht_dec_agg(ht_reader *r, ht_agg_rec *a);
void ht_dec_telemetry(ht_reader *r, ht_telemetry_rec *t);
void ht_dec_mark(ht_reader *r, ht_mark_rec *m);
void ht_dec_heap_dump(ht_reader *r, ht_heap_dump_rec *d);

/* Whole small messages. */
void ht_enc_error(ht_buf *b, uint64_t seq, int code, const char *text);
void ht_enc_simple(ht_buf *b, uint16_t type, uint64_t seq); /* empty body */
void ht_enc_u64_msg(ht_buf *b, uint16_t type, uint64_t seq, uint64_t value);
void ht_enc_bye(ht_buf *b, uint64_t seq, const char *reason);

/* SYNC_REP body: u64 last_stream_seq, u32 count, count x (u32 len, message):
 * stream messages, then a HELLO_REP with the state as of the sync (newer
 * than the last telemetry reading, which may be a second old). */
typedef struct ht_sync_iter {
    ht_reader r;
    uint64_t last_stream_seq;
    uint32_t left;
} ht_sync_iter;
int ht_sync_begin(const ht_msg *m, ht_sync_iter *it);
/* Next embedded message; 1 = got one, 0 = end, <0 = -error. */
int ht_sync_next(ht_sync_iter *it, ht_msg *out);

#include "protocol_cpu.h"  /* the CPU sampling records */
#include "protocol_drag.h" /* drag mode's records */

#endif
