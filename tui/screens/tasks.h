/*
 * tasks.h - the viewer's jobs (jobs.h): requests to the agent, exports,
 * heap snapshots, and the chooser's discovery and attach.
 *
 * Owns: what each job copies before it leaves the UI thread, what it does on
 * the worker, and what it says on the status line when it is done. A request
 * to the agent runs on its own nng context of the connection's REQ socket
 * (client.h, ht_call); an export writes a copy of what the screen shows (its
 * export hook fills an ht_export_req, screen.h) and a copy of the store's names, rows,
 * mark and telemetry, so the loop can go on changing both while the files are
 * written. Started on the UI thread; they never block it. Esc cancels: a
 * request stops being waited for (the agent may still carry it out), an
 * export stops and removes its files. A heap snapshot's job frees nothing of
 * the loop's: when done, on the UI thread, the snapshot it read replaces the
 * one on screen, whose class figures are kept as the one before it.
 */
#ifndef HEAPTOP_TASKS_H
#define HEAPTOP_TASKS_H

#include <stdint.h>

#include "app.h"

/* Ask the agent: HT_MSG_SET_INTERVAL_REQ (arg: bytes), PAUSE_REQ, RESUME_REQ,
 * MARK_REQ (arg: ht_mark_op). The answer comes to the status line. */
int ht_task_command(ht_app *a, uint16_t type, uint64_t arg); /* 0 asked, -1 not (said) */
/* Ask the agent to turn drag mode on for filter (class-name prefixes, ':'
 * between; checked by the caller with ht_drag_filter_check), or off for ""
 * (tasks_drag.c). What it answered comes to the status line. 0 asked, -1
 * not (said). */
int ht_task_drag(ht_app *a, const char *filter);
/* Export what the screen in front shows into --out: its model rebuilt first
 * when the keys before (a screen switch, a filter) left it stale. */
void ht_task_export(ht_app *a);
/* Read and analyse the heap dump at path (analysis.h) off the UI thread,
 * progress on the status line, Esc cancels; when done it replaces the
 * snapshot on screen. What is kept of the snapshot it replaces (compare.h)
 * becomes the one before it, for the Compare screen, which then_compare
 * brings to the front (else the heap classes come). */
void ht_task_heap_open(ht_app *a, const char *path, int then_compare);
/* The same for a dump the agent wrote for us, checked and opened
 * (dump_file.h; the job takes f over): remove_after removes it once it was
 * read, and only then (a dump that could not be read is left to the agent,
 * which removes it when the JVM exits, and the status line says where). */
void ht_task_heap_dump(ht_app *a, ht_dump_file *f, int remove_after, int then_compare);
/* heaptop open A B: A's class figures (compare.h), then B as
 * ht_task_heap_open does, in one job; A becomes the snapshot before B (the
 * Compare screen compares them) and the Compare screen comes to the front. */
void ht_task_heap_compare(ht_app *a, const char *before, const char *path);
/* The chooser's list of JVMs (jvms.h), found off the UI thread and handed
 * to the chooser when done; one at a time (a->discovering). */
void ht_task_discover(ht_app *a);
/* Load heaptop's agent into pid (attach.h) off the UI thread, saying
 * "attaching to pid N ..." on the status line; then connect to it
 * (ht_app_connect), or say why it failed. */
void ht_task_attach(ht_app *a, pid_t pid);

#endif
