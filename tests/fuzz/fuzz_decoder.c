/*
 * libFuzzer target: arbitrary bytes through the decoder and, when they decode,
 * into the viewer's store, as a stream message or a sync reply would go. Any
 * out-of-bounds read, leak or undefined behaviour is a finding.
 */
#include "protocol.h"
#include "store.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ht_msg m;
    if (ht_msg_open(data, size, &m) != HT_OK || ht_msg_validate(&m) != HT_OK) return 0;
    ht_store s;
    ht_store_init(&s);
    if (m.type == HT_MSG_SYNC_REP) {
        ht_sync_iter it;
        ht_msg inner;
        if (ht_sync_begin(&m, &it) == HT_OK)
            while (ht_sync_next(&it, &inner) == 1)
                ht_store_apply(&s, &inner);
    } else {
        ht_store_apply(&s, &m);
    }
    char name[256];
    for (uint32_t i = 0; i < s.nrows; i++) {
        ht_store_site_name(&s, s.rows[i].trace_id, name, sizeof name);
        char *stack = ht_store_stack_text(&s, s.rows[i].trace_id);
        free(stack);
    }
    for (uint32_t i = 0; i < s.ncpu_rows; i++) {
        const ht_cpu_row_rec *row = &s.cpu_rows[i];
        ht_store_cpu_row_name(&s, row, name, sizeof name);
        ht_store_cpu_thread_name(&s, row->thread_id, name, sizeof name);
        if (ht_store_cpu_row(&s, row->thread_id, row->trace_id, row->bucket) != row) abort();
    }
    ht_store_free(&s);
    return 0;
}
