/* reach.c - see reach.h. */
#include "reach.h"

#include "attach.h"
#include "clock.h"
#include "options.h"
#include "proc.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ht_reach_set(ht_reach_opts *o, const char *flag, const char *value)
{
    if (strcmp(flag, "--agent") == 0)
        o->agent = value;
    else if (strcmp(flag, "--interval") == 0)
        o->interval = value;
    else if (strcmp(flag, "--agent-opts") == 0)
        o->agent_opts = value;
    else
        return -1;
    return 0;
}

static int given(const ht_reach_opts *o)
{
    return o->interval || o->agent_opts || o->agent;
}

int ht_reach_check(ht_reach_opts *o, char *err, size_t errn)
{
    char path[PATH_MAX];
    if (o->agent && ht_attach_find_agent(path, sizeof path, o->agent, err, errn) != 0) return -1;
    int w = snprintf(o->text, sizeof o->text, "%s%s%s%s%s", o->interval ? "interval=" : "",
                     o->interval ? o->interval : "", o->interval && o->agent_opts ? "," : "",
                     o->agent_opts ? o->agent_opts : "", "");
    if (w < 0 || (size_t)w >= sizeof o->text) {
        snprintf(err, errn, "--agent-opts is too long (at most %zu bytes)", sizeof o->text - 128);
        return -1;
    }
    ht_options parsed;
    char why[512];
    if (ht_options_parse(o->text, &parsed, why, sizeof why) != 0) {
        /* the parser speaks as the agent: "heaptop: bad value for option ..." */
        const char *msg = strncmp(why, "heaptop: ", 9) == 0 ? why + 9 : why;
        snprintf(err, errn, "%s%s", o->interval && strstr(msg, "'interval'") ? "--interval: " : "",
                 msg);
        return -1;
    }
    if (parsed.help) {
        snprintf(err, errn,
                 "--agent-opts help: the agent would print its options into the JVM's "
                 "stderr; run java -agentpath:/path/to/libheaptop.so=help -version");
        return -1;
    }
    if (parsed.ipc[0] && parsed.ipc[0] != '/') {
        snprintf(err, errn,
                 "--agent-opts ipc=%s: heaptop attaches with an absolute socket path only (the "
                 "JVM's working directory is not this one)",
                 parsed.ipc);
        return -1;
    }
    return 0;
}

static void say_not_applied(const ht_target *t, const ht_reach_opts *o, const char *prog)
{
    if (!given(o)) return;
    char who[64] = "the agent";
    if (t->pid) snprintf(who, sizeof who, "pid %d", (int)t->pid);
    fprintf(stderr,
            "%s: %s already runs heaptop's agent: %s%s%s%s%s not applied (heaptop control "
            "changes a running agent's interval and budget; for other options, heaptop "
            "control PID detach, then attach again with them)\n",
            prog, who, o->agent ? "--agent " : "", o->agent ? o->agent : "",
            o->agent && o->text[0] ? ", " : "", o->text[0] ? "options " : "", o->text);
}

/* Where the agent we load will listen (t->base) and the ipc= it is given,
 * as the JVM sees the path: where ht_target_from_pid looks (our default, or
 * the JVM's own), unless --agent-opts ipc= said. */
static int choose_base(ht_target *t, const ht_proc *p, const char *user_ipc, char *ipc, size_t n,
                       char *err, size_t errn)
{
    char root[64] = "";
    if (p->other_mnt_ns) snprintf(root, sizeof root, "/proc/%d/root", (int)p->pid);
    size_t r = strlen(root);
    if (!user_ipc[0]) {
        snprintf(ipc, n, "%s", r && strncmp(t->base, root, r) == 0 ? t->base + r : t->base);
        return 0;
    }
    snprintf(ipc, n, "%s", user_ipc);
    int w = snprintf(t->base, sizeof t->base, "%s%s", root, ipc);
    if (w < 0 || (size_t)w + 8 >= sizeof t->base) {
        snprintf(err, errn, "the agent's socket path %s%s is too long", root, ipc);
        return -1;
    }
    return 0;
}

/* Whether this process becomes p's user: root, on a JVM that is not root's. */
static int becomes(const ht_proc *p)
{
    return geteuid() == 0 && p->uid != 0;
}

static char became[64]; /* the user this process went on as, "" while it is itself */

const char *ht_reach_became(void)
{
    return became[0] ? became : NULL;
}

/* Root viewing another user's JVM: the agent accepts viewers of its own user
 * only, so this process becomes that user (no other thread runs yet). */
static int become(const ht_proc *p, const char *prog, char *err, size_t errn)
{
    if (!becomes(p)) return 0;
    char user[64];
    ht_proc_user_name(p->uid, user, sizeof user);
    if (setgroups(0, NULL) != 0 || setresgid(p->gid, p->gid, p->gid) != 0 ||
        setresuid(p->uid, p->uid, p->uid) != 0) {
        snprintf(err, errn,
                 "cannot become user %s (uid %u), whose viewers alone the agent accepts: %s", user,
                 (unsigned)p->uid, strerror(errno));
        return -1;
    }
    snprintf(became, sizeof became, "%s", user);
    fprintf(stderr,
            "%s: pid %d runs as user %s: heaptop goes on as %s (the agent accepts its own "
            "user only)\n",
            prog, (int)p->pid, user, user);
    return 0;
}

/* An agent of another user's JVM (for root) listens at the JVM's own
 * default (ht_target_from_pid): when its socket is there, root goes on as
 * that user. */
int ht_reach_existing(ht_target *t, const char *prog, char *err, size_t errn)
{
    ht_proc p;
    char ctl[HT_IPC_PATH_MAX + 8];
    struct stat st;
    if (!t->pid || t->owner == geteuid() || ht_proc_look(t->pid, &p) != HT_PROC_JVM_AGENT ||
        ht_ipc_file(ctl, sizeof ctl, t->base, ".ctl") != 0 || lstat(ctl, &st) != 0 ||
        !S_ISSOCK(st.st_mode))
        return 0;
    return become(&p, prog, err, errn);
}

ht_target_status ht_reach(ht_target *t, ht_reach_opts *o, const char *prog, char *err, size_t errn)
{
    if (ht_reach_existing(t, prog, err, errn) != 0) return HT_TARGET_FATAL;
    ht_target_status st = ht_target_resolve(t, err, errn);
    if (st != HT_TARGET_NO_AGENT) {
        if (st == HT_TARGET_READY) say_not_applied(t, o, prog);
        return st;
    }
    ht_proc p;
    ht_proc_look(t->pid, &p);
    char agent[PATH_MAX], ipc[HT_IPC_PATH_MAX], opts[sizeof o->text + HT_IPC_PATH_MAX + 8];
    ht_options parsed;
    char why[512];
    if (ht_attach_find_agent(agent, sizeof agent, o->agent, err, errn) != 0) return HT_TARGET_FATAL;
    if (ht_options_parse(o->text, &parsed, why, sizeof why) != 0 ||
        choose_base(t, &p, parsed.ipc, ipc, sizeof ipc, err, errn) != 0)
        return HT_TARGET_FATAL;
    snprintf(opts, sizeof opts, "%s%s%s%s", o->text, o->text[0] ? "," : "",
             parsed.ipc[0] ? "" : "ipc=", parsed.ipc[0] ? "" : ipc);
    if (opts[strlen(opts) - 1] == ',') opts[strlen(opts) - 1] = '\0';
    if (ht_attach_check(t->pid, agent, err, errn) < 0) return HT_TARGET_FATAL;
    fprintf(stderr, "%s: attaching to pid %d (%s) ...\n", prog, (int)t->pid,
            p.main_class[0] ? p.main_class : p.comm);
    uint64_t deadline = ht_mono_ms() + (uint64_t)o->timeout_ms;
    if (ht_attach_load(t->pid, agent, opts, o->timeout_ms, err, errn) != 0) return HT_TARGET_FATAL;
    if (become(&p, prog, err, errn) != 0) return HT_TARGET_FATAL;
    /* the agent opens its sockets as it starts, in Agent_OnAttach */
    for (;;) {
        st = ht_target_resolve(t, err, errn);
        if (st == HT_TARGET_READY || st == HT_TARGET_FATAL) return st;
        if (ht_mono_ms() >= deadline) break;
        struct timespec nap = {0, 20 * 1000000L};
        nanosleep(&nap, NULL);
    }
    char more[256];
    snprintf(more, sizeof more, "%s", err);
    snprintf(err, errn,
             "pid %d loaded heaptop's agent, which did not open %s.ctl within %d ms (%s)",
             (int)t->pid, t->base, o->timeout_ms, more);
    return HT_TARGET_FATAL;
}
