/*
 * libFuzzer target: arbitrary bytes as the agent's option string (what
 * -agentpath:...=OPTIONS, heaptop's --agent-opts and an attach pass in) and as
 * a TCP endpoint (listen= and --ipc tcp://...). Any out-of-bounds access,
 * undefined behaviour, a refusal without a message, or an accepted string
 * whose formatted options do not parse back to the same options is a finding.
 */
#include "ipc_path.h"
#include "options.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    ht_options o, back;
    char err[512] = "", text[HT_OPTIONS_TEXT_MAX];
    if (ht_options_parse(s, &o, err, sizeof err) != 0) {
        if (!err[0]) abort();
    } else if (!o.help) {
        ht_options_format(&o, text, sizeof text);
        err[0] = '\0';
        if (ht_options_parse(text, &back, err, sizeof err) != 0) abort();
        if (back.interval != o.interval || back.depth != o.depth ||
            back.max_traces != o.max_traces || back.buffer != o.buffer ||
            back.viewer_queue != o.viewer_queue || back.live != o.live ||
            back.budget_x100 != o.budget_x100 || strcmp(back.ipc, o.ipc) != 0 ||
            strcmp(back.listen_host, o.listen_host) != 0 || back.listen_port != o.listen_port ||
            strcmp(back.drag, o.drag) != 0 || back.drag_budget != o.drag_budget)
            abort();
    }
    char host[64], url[128];
    unsigned port = 0;
    err[0] = '\0';
    if (ht_tcp_parse(s, host, sizeof host, &port, err, sizeof err) == 0) {
        if (port < 1 || port > 65534 || ht_tcp_url(url, sizeof url, host, port, 1) != 0) abort();
    } else if (!err[0]) {
        abort();
    }
    free(s);
    return 0;
}
