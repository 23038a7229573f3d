/*
 * cpu_async_jdk.h - the JVMs where cpu=async (AsyncGetCallTrace from a
 * signal handler) is known to be safe, and why the others are not.
 *
 * Owns: the allowlist, by the VM's name and version as the JVM reports them
 * (java.vm.name, java.vm.version), against the crash history of
 * AsyncGetCallTrace and of stale jmethodIDs (docs/known-limits.md has the
 * table). Every JDK line must carry these fixes:
 * - JDK-8307549 (the 17.0.7 / 11.0.19 regression of JDK-8294160),
 * - JDK-8313796 (a crash on an unreadable interpreter method pointer),
 * - JDK-8313816 (jmethodIDs of deallocated methods),
 * - JDK-8268364 (jmethodIDs cleared when their class unloads: a stale one
 *   given to JVMTI is an error, not a crash; the drain relies on it).
 * Pure: no JVMTI, any thread; unit-tested (tests/unit/test_cpu_async.c).
 */
#ifndef HEAPTOP_CPU_ASYNC_JDK_H
#define HEAPTOP_CPU_ASYNC_JDK_H

#include <stddef.h>

/* A Java version string's numbers: "17.0.15+6-Debian-1deb12u1" -> 17, 0,
 * 15; "25+36" -> 25, 0, 0; "1.8.0_402" -> 8, 0, 402. 0, or -1 when it does
 * not start with a number. */
int ht_jdk_version_parse(const char *v, int *feature, int *interim, int *update);

/* 1 when cpu=async may run in a VM named vm_name at version vm_version; 0
 * with the reason in why (one line, naming the version and what would do). */
int ht_cpu_async_jdk_ok(const char *vm_name, const char *vm_version, char *why, size_t n);

#endif
