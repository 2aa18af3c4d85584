/* clradix_mpi internals: the key order on the host, splitter selection and the exchange. */
#ifndef CLRADIX_MPI_INTERNAL_H
#define CLRADIX_MPI_INTERNAL_H

#include "clradix_mpi.h"
#include "key_order.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The sort's key order as an unsigned image of the bits in the range: the same image the
   kernels sort by (signed keys with the sign bit flipped, floats in totalOrder, descending
   complemented), so that ascending images are the sort's order. */
typedef struct key_order {
    unsigned key_bytes;
    key_transform image;         /* the key's order-preserving image */
    unsigned begin_bit, bits;    /* the range: bits begin_bit .. begin_bit + bits */
    uint64_t mask;               /* bits ones */
} key_order;

/* Fills o; returns CLRADIX_ERROR_INVALID_ARGUMENT for an unknown type or a bad range. */
clradix_status key_order_init(key_order *o, clradix_key_type type, const clradix_options *options);

/* The image of keys[i] within the range (key_order.h's key_image, shifted and masked). */
static inline uint64_t range_image(const key_order *o, const void *keys, size_t i)
{
    const uint64_t key = key_load(keys, o->key_bytes, i);
    return (key_image(key, &o->image) >> o->begin_bit) & o->mask;
}

/* The first position in [lo, hi) of sorted keys whose image is at least bound. */
static inline size_t image_lower_bound(const key_order *o, const void *keys, size_t lo, size_t hi, uint64_t bound)
{
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (range_image(o, keys, mid) < bound)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* select.c: where each rank's sorted keys split. keys: this rank's n keys, sorted; targets:
   the P - 1 global positions (of total) at which the outputs of ranks 1 .. P-1 begin,
   non-decreasing. Fills split[b] with the number of this rank's keys that go before
   target b in the order (image, rank, position). work: select_work_words(P) words.
   Collective over comm; returns an MPI error code. */
size_t select_work_words(int ranks);
int select_splits(MPI_Comm comm, const key_order *o, const void *keys, size_t n, const uint64_t *targets,
                  uint64_t total, uint64_t *split, uint64_t *work);

/* exchange.c: one array the exchange moves, elements of size bytes. */
enum { EXCHANGE_ARRAYS_MAX = 2 };  /* keys and values */
typedef struct exchange_array {
    size_t size;
    const void *send;
    void *recv;
} exchange_array;

/* Sends send_count[r] elements of every array to each rank r, taken in rank order from
   its send array, and receives recv_count[r] from each rank r, placed in rank order in its
   recv array: every message of every array posted at once, then one wait (in rounds of
   pieces of at most the message limit where a share passes it). requests: 2 P per array.
   Returns an MPI error code. */
int exchange(MPI_Comm comm, const exchange_array *arrays, int count_arrays, const uint64_t *send_count,
             const uint64_t *recv_count, MPI_Request *requests);

/* merge.c: the final step joins the runs a rank received from several ranks either by a
   merge on the host (CPU devices: the host's cores are the device's, and a merge reads
   the data once where a sort reads it once per digit) or by a stable sort on the
   device (other devices, whose sort is faster than a host merge). */
int host_merge_for(cl_device_id device);

/* A run of the merge: its next element and its end; a contestant of its tree (merge.c). */
typedef struct merge_run {
    size_t first, end;
} merge_run;
typedef struct contestant contestant;
/* Whether two or more of run_count[0 .. runs) are not empty: runs to join. */
int merge_needed(const uint64_t *run_count, int runs);
/* Merges the sorted runs that lie one after the other in keys (and values), in run_count
   order, stably, into keys_to (values_to) in one pass, split into consecutive pieces of
   the output over up to `threads` threads where it is large enough; list: room for runs
   entries, tree for 2 runs (merge_tree_bytes): the one-thread merge's, which needs no
   more memory. */
void merge_runs(const key_order *o, size_t value_size, const uint64_t *run_count, int runs, unsigned threads,
                merge_run *list, contestant *tree, const void *keys, const void *values, void *keys_to,
                void *values_to);
/* The threads a rank's merge may use: the processors it is bound to, or, unbound, its
   share of the node's among ranks_here ranks on it. */
unsigned merge_threads(int ranks_here);
size_t merge_tree_bytes(int runs);

/* The most elements of element_bytes one message or MPI_Alltoallv count and offset
   carries: INT_MAX bytes' worth (some MPI libraries fail past 2 GiB in one message even
   where the count fits an int), or what the test build sets
   (clradix_mpi_testing_message_limit). */
size_t message_limit(size_t element_bytes);

#endif
