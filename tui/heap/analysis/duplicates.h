/*
 * duplicates.h - groups of objects of a snapshot whose content is deeply
 * equal: same class, same primitive values, same array contents, and
 * references to objects that are themselves equal, cycles included.
 *
 * What "content" is:
 *  - an instance: its class, its primitive field values (the INSTANCE DUMP's
 *    bytes less its references) and, per reference field, null, or an object
 *    of the dump compared by content, or (an id the dump does not hold) that
 *    id: two references to one missing object are equal, to two missing
 *    objects not (nothing says what they held);
 *  - a primitive array: its class (element type), length and elements;
 *    an object array: its class, length and elements as the fields above;
 *  - the reference from an object to its class is not content (equal objects
 *    have one class anyway), and a reference to a class object or to a class
 *    loader compares by identity: class objects and class loaders are never
 *    grouped (what a class or a loader is lies in its identity, not its
 *    fields), and a loader's classes are not content.
 * Equal is the largest relation that holds for equal content (bisimulation):
 * two rings whose nodes hold the same values are equal node by node; a ring
 * that differs in one field is not equal to any; a ring of nodes with one
 * value is one group of its nodes.
 *
 * Sizes: `bytes_each` of a group is the least retained size among its
 * copies (dominators.h; an object no root reaches counts its shallow size):
 * the object and what it alone holds, which is what dropping one copy gives
 * back at least. So Strings that each have a byte[] of their own count both,
 * while 5,000 Strings sharing one byte[] count 24 bytes each and the byte[]
 * is no group at all (it is one object). wasted = (copies - 1) x bytes_each.
 * Groups overlap as retained sizes do: a group of equal Strings holds the
 * byte[]s of another group (each group of equal byte[]s also shows alone).
 *
 * Algorithm, near-linear and never comparing all pairs:
 *  1. every object's content without its references' targets is hashed and
 *     put in a hash table of representatives; a hash hit is compared byte
 *     by byte before it joins the group (class, primitive bytes, which
 *     references are null or missing), so the first partition is exact;
 *  2. the partition is refined until each group's members refer, field by
 *     field, to the same groups (Hopcroft's "process the smaller half": when
 *     a group splits, all parts but the largest get new numbers and only the
 *     objects referring to those are looked at again, with a hash of their
 *     references' groups updated in O(1) per reference), so each object
 *     changes group O(log n) times;
 *  3. every group is then verified field by field against its first member;
 *     a difference (only a hash collision can make one) splits the group
 *     exactly (a sort by the referenced groups) and step 2 runs again.
 * Memory: arrays indexed by object number and by candidate (an object whose
 * first-partition group has another member), no node per malloc; nothing
 * recurses (a chain of millions is fine).
 *
 * Threads: none of its own; built on the caller's (the snapshot's job),
 * then read-only. Must never: recurse, compare all pairs, let a hash
 * decide that two objects are equal, or read outside an object's record.
 */
#ifndef HEAPTOP_DUPLICATES_H
#define HEAPTOP_DUPLICATES_H

#include "dominators.h"
#include "snapshot.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ht_dup_group {
    uint32_t cls;        /* class index of its copies */
    uint32_t copies;     /* >= 2 */
    uint64_t first;      /* its copies: members[first .. first + copies), by number */
    uint64_t bytes_each; /* the least retained size among the copies */
    uint64_t wasted;     /* (copies - 1) * bytes_each */
} ht_dup_group;

typedef struct ht_dups {
    ht_dup_group *groups; /* most wasted first */
    uint32_t ngroups;
    uint32_t *members;
    uint64_t nmembers;
    /* figures of the run */
    uint64_t candidates; /* objects with a possible copy after step 1 */
    uint64_t collisions; /* hash matches that were not equal, every step */
    uint32_t rounds;     /* step 3's verifications */
    size_t peak_bytes;   /* the most memory it held at once, results included */
    double seconds;
} ht_dups;

/* Test hook: non-zero makes every hash of content and every hash of
 * references one constant, so only the exact comparisons separate content. */
extern int ht_dups_collide_for_tests;

/* HT_HPROF_OK, HT_HPROF_ERR_NOMEM or HT_HPROF_ERR_CANCELLED (s->h->err set).
 * d gives the retained sizes; opts (progress, cancel) may be NULL. */
int ht_dups_build(ht_dups *g, const ht_snapshot *s, const ht_dominators *d,
                  const ht_snapshot_opts *opts);
void ht_dups_free(ht_dups *g);

/* Who holds the copies of group gi: one row per referring class and field
 * ("KnownHeap$Entry.text", "java.lang.Object[] element", "static
 * KnownHeap.CACHE", "GC root (JNI global)", "nothing (unreachable)"), with
 * how many copies it holds (a copy held two ways counts in both) and one of
 * them; most copies first. *out is the caller's to free. 0, -1 out of memory. */
typedef struct ht_dup_holder {
    char name[240];
    uint32_t copies;
    uint32_t example; /* a copy it holds */
} ht_dup_holder;
int ht_dups_holders(const ht_snapshot *s, const ht_dups *g, uint32_t gi, ht_dup_holder **out,
                    uint32_t *n);

#endif
