/* The one hash map against a plain array of what it should hold, through a
 * long random run of puts, replaces and deletes (clusters, wrap-around and
 * backward-shift deletion included), and the key 0. */
#include "check.h"
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

#define UNIVERSE 5000u

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    ht_map m;
    ht_map_init(&m);
    CHECK(ht_map_get(&m, 1, NULL) == 0 && ht_map_del(&m, 1) == 0 && ht_map_count(&m) == 0);
    /* the truth: value+1 per key (0 = absent) for keys spread over 64 bits */
    uint64_t *truth = calloc(UNIVERSE, sizeof *truth);
    uint64_t keys[UNIVERSE];
    for (uint32_t k = 0; k < UNIVERSE; k++)
        keys[k] = k == 0 ? 0 : (k < 100 ? k : next()); /* 0, small dense ids, random */
    uint32_t count = 0, wrong = 0;
    for (int step = 0; step < 400000; step++) {
        uint32_t k = (uint32_t)(next() % UNIVERSE);
        uint64_t r = next() % 10;
        if (r < 6) {
            uint64_t v = next();
            CHECK(ht_map_put(&m, keys[k], v) == 0);
            if (!truth[k]) count++;
            truth[k] = v + 1;
        } else if (r < 9) {
            int had = ht_map_del(&m, keys[k]);
            if (had != (truth[k] != 0)) wrong++;
            if (truth[k]) count--;
            truth[k] = 0;
        } else {
            uint64_t v = 0;
            int has = ht_map_get(&m, keys[k], &v);
            if (has != (truth[k] != 0) || (has && v + 1 != truth[k])) wrong++;
        }
        if (ht_map_count(&m) != count) wrong++;
    }
    CHECK(wrong == 0);
    /* every key agrees at the end, present or not */
    uint32_t agree = 0;
    for (uint32_t k = 0; k < UNIVERSE; k++) {
        uint64_t v = 0;
        int has = ht_map_get(&m, keys[k], &v);
        agree += has == (truth[k] != 0) && (!has || v + 1 == truth[k]);
    }
    CHECK(agree == UNIVERSE);
    /* clear keeps the table and forgets everything */
    ht_map_clear(&m);
    CHECK(ht_map_count(&m) == 0 && ht_map_get(&m, keys[1], NULL) == 0);
    CHECK(ht_map_put(&m, 0, 7) == 0 && ht_map_get(&m, 0, &keys[0]) && keys[0] == 7);
    /* salts give other keys; salt 0 is the key */
    CHECK(ht_map_salt(42, 0) == 42 && ht_map_salt(42, 1) != 42 &&
          ht_map_salt(42, 1) != ht_map_salt(42, 2));
    CHECK(ht_hash_bytes("abc", 3) != ht_hash_bytes("abd", 3) &&
          ht_hash_bytes("abc", 3) == ht_hash_bytes("abc", 3));
    ht_map_free(&m);
    free(truth);
    return check_summary();
}
