/* Splitter selection: a radix select, digit by digit from the top, over the ranks' sorted
   keys. Each round every rank counts, for each key prefix that output boundaries still
   share, its keys below each digit value within that prefix (searches in its sorted keys),
   one MPI_Allreduce sums the counts, and every rank picks the same digit for each boundary.
   After the last digit each boundary has its key image and the number of keys below it;
   the keys equal to it are split in (rank, position) order with one MPI_Exscan.

   What a round costs grows at most linearly in the number of ranks: boundaries with the
   same prefix share their counts (in the first round all share one), and the digit is as
   wide as COUNTS_PER_ROUND counts allow (or what the test build sets), 8 bits at most and 1 bit at least, so a round
   reduces at most max(COUNTS_PER_ROUND, P - 1) counts however many ranks there are. */
#include "mpi_internal.h"

#include <stdlib.h>

enum { DIGIT_BITS_MAX = 8, COUNTS_PER_ROUND = 1 << 16 };

#ifdef CLRADIX_TESTING
#include "mpi_testing.h"
static size_t testing_counts;
void clradix_mpi_testing_counts_per_round(size_t counts)
{
    testing_counts = counts;
}
#endif

static size_t counts_per_round(void)
{
#ifdef CLRADIX_TESTING
    if (testing_counts)
        return testing_counts;
#endif
    return COUNTS_PER_ROUND;
}

clradix_status key_order_init(key_order *o, clradix_key_type type, const clradix_options *options)
{
    o->key_bytes = key_type_bytes(type);
    if (key_type_wide(type))
        return CLRADIX_ERROR_UNSUPPORTED;
    if (!o->key_bytes)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    unsigned begin, end;
    if (!bit_range(options, 8 * o->key_bytes, &begin, &end))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    o->image = key_transform_of(type, options && options->descending);
    o->begin_bit = end > begin ? begin : 0;  /* empty: every image 0, and no shift by 64 at bit 64 */
    o->bits = end - begin;
    o->mask = o->bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << o->bits) - 1;
    return CLRADIX_SUCCESS;
}

/* The most counts one round reduces with `boundaries` boundaries: one group of 8-bit
   digits, the budget, or one count for each boundary. */
static size_t counts_capacity(size_t boundaries)
{
    const size_t widest = boundaries * ((1u << DIGIT_BITS_MAX) - 1);
    const size_t budget = widest < counts_per_round() ? widest : counts_per_round();
    return budget > boundaries ? budget : boundaries;
}

size_t select_work_words(int ranks)
{
    const size_t boundaries = (size_t)ranks - 1;
    return 6 * boundaries + 2 * counts_capacity(boundaries);
}

/* A round's digit width for `groups` prefixes with `left` bits to go: as wide as the
   budget allows, between 1 and DIGIT_BITS_MAX bits. */
static unsigned select_round_bits(size_t groups, unsigned left)
{
    unsigned bits = 1;
    while (bits < DIGIT_BITS_MAX && bits < left && groups * ((2u << bits) - 1) <= counts_per_round())
        ++bits;
    return bits < left ? bits : left;
}

int select_splits(MPI_Comm comm, const key_order *o, const void *keys, size_t n, const uint64_t *targets,
                  uint64_t total, uint64_t *split, uint64_t *work)
{
    int ranks, err;
    MPI_Comm_size(comm, &ranks);
    const size_t boundaries = (size_t)ranks - 1, capacity = counts_capacity(boundaries);
    /* Per boundary: the image prefix chosen so far, the global count of keys below it, the
       local range of keys with it, and the first boundary of each group; then the counts
       of one round (local, global). */
    uint64_t *prefix = work, *below = prefix + boundaries, *lo = below + boundaries, *hi = lo + boundaries,
             *equal_before = hi + boundaries, *first = equal_before + boundaries, *local = first + boundaries,
             *global = local + capacity;
    for (size_t b = 0; b < boundaries; ++b) {
        prefix[b] = below[b] = lo[b] = 0;
        hi[b] = n;
    }
    /* A boundary at the very end (target == total) needs no digits; targets do not
       decrease, so those are the last ones. */
    size_t active = boundaries;
    while (active > 0 && targets[active - 1] >= total)
        --active;

    for (unsigned left = o->bits; left > 0 && active > 0;) {
        /* Boundaries with the same prefix are adjacent (their keys are in order) and have
           the same ranges: a group, counted once. */
        size_t groups = 0;
        for (size_t b = 0; b < active; ++b)
            if (b == 0 || prefix[b] != prefix[b - 1])
                first[groups++] = b;
        const unsigned bits = select_round_bits(groups, left), digits = 1u << bits;
        left -= bits;
        /* local[g][d]: the group's keys whose digit is at most d (the last digit's count is
           the whole range: not needed). */
        for (size_t g = 0; g < groups; ++g) {
            const size_t b = (size_t)first[g];
            uint64_t *count = &local[g * (digits - 1)];
            size_t at = (size_t)lo[b];
            for (unsigned d = 0; d + 1 < digits; ++d) {
                const uint64_t bound = ((prefix[b] << bits) | (d + 1)) << left;
                at = image_lower_bound(o, keys, at, (size_t)hi[b], bound);
                count[d] = at - lo[b];
            }
        }
        err = MPI_Allreduce(local, global, (int)(groups * (digits - 1)), MPI_UINT64_T, MPI_SUM, comm);
        if (err != MPI_SUCCESS)
            return err;
        for (size_t g = 0; g < groups; ++g) {
            const size_t head = (size_t)first[g], end = g + 1 < groups ? (size_t)first[g + 1] : active;
            const uint64_t *gc = &global[g * (digits - 1)], *lc = &local[g * (digits - 1)];
            const uint64_t old_below = below[head], old_lo = lo[head], old_hi = hi[head];
            for (size_t b = head; b < end; ++b) {
                /* The digit of the key at global position targets[b]: the first whose
                   count passes it. */
                const uint64_t wanted = targets[b] - old_below;
                unsigned d = 0;
                while (d + 1 < digits && gc[d] <= wanted)
                    ++d;
                const int last = d + 1 == digits;
                const uint64_t global_before = d ? gc[d - 1] : 0, local_before = d ? lc[d - 1] : 0;
                below[b] = old_below + global_before;
                lo[b] = old_lo + local_before;
                hi[b] = last ? old_hi : old_lo + lc[d];
                prefix[b] = (prefix[b] << bits) | d;
            }
        }
    }

    /* Keys equal to a boundary's key: those of lower ranks go first, then this rank's in
       order, as many as the target leaves. */
    for (size_t b = 0; b < boundaries; ++b)
        local[b] = hi[b] - lo[b];
    err = MPI_Exscan(local, equal_before, (int)boundaries, MPI_UINT64_T, MPI_SUM, comm);
    if (err != MPI_SUCCESS)
        return err;
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (size_t b = 0; b < boundaries; ++b) {
        if (targets[b] >= total) {
            split[b] = n;
            continue;
        }
        const uint64_t before = rank == 0 ? 0 : equal_before[b], wanted = targets[b] - below[b];
        uint64_t take = wanted > before ? wanted - before : 0;
        if (take > hi[b] - lo[b])
            take = hi[b] - lo[b];
        split[b] = lo[b] + take;
    }
    return MPI_SUCCESS;
}
