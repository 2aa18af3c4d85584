/* Splitter selection: a radix select, digit by digit from the top, over the ranks' sorted
   keys. Each round every rank counts, for each output boundary still being narrowed, its
   keys below each digit value within the boundary's prefix (binary searches in its sorted
   keys), one MPI_Allreduce sums the counts, and every rank picks the same digit. After the
   last digit each boundary has its key image and the number of keys below it; the keys
   equal to it are split in (rank, position) order with one MPI_Exscan. */
#include "mpi_internal.h"

#include <stdlib.h>

enum { DIGIT_BITS = 8, DIGITS = 1 << DIGIT_BITS };

clradix_status key_order_init(key_order *o, clradix_key_type type, const clradix_options *options)
{
    o->key_bytes = key_type_bytes(type);
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

/* The first position in [lo, hi) whose key's image is at least bound. */
static size_t lower_bound(const key_order *o, const void *keys, size_t lo, size_t hi, uint64_t bound)
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

size_t select_work_words(int ranks)
{
    const size_t boundaries = (size_t)ranks - 1;
    return boundaries * (2 * DIGITS + 5);
}

int select_splits(MPI_Comm comm, const key_order *o, const void *keys, size_t n, const uint64_t *targets,
                  uint64_t total, uint64_t *split, uint64_t *work)
{
    int ranks, err;
    MPI_Comm_size(comm, &ranks);
    const size_t boundaries = (size_t)ranks - 1;
    /* Per boundary: the image prefix chosen so far, the global count of keys below it, the
       local range of keys with it, and the digit counts of one round (local, global). */
    uint64_t *prefix = work, *below = prefix + boundaries, *lo = below + boundaries, *hi = lo + boundaries,
             *equal_before = hi + boundaries, *local = equal_before + boundaries, *global = local + boundaries * DIGITS;
    for (size_t b = 0; b < boundaries; ++b) {
        prefix[b] = below[b] = lo[b] = 0;
        hi[b] = n;
    }

    /* The top digit takes what is left over, the others DIGIT_BITS each. */
    for (unsigned left = o->bits; left > 0;) {
        const unsigned bits = left % DIGIT_BITS ? left % DIGIT_BITS : DIGIT_BITS, digits = 1u << bits;
        left -= bits;
        /* local[b][d]: keys in the boundary's range whose digit is at most d. A boundary at
           the very end (target == total) needs no digits: its counts stay zero everywhere. */
        for (size_t b = 0; b < boundaries; ++b)
            for (unsigned d = 0; d < digits; ++d) {
                uint64_t *count = &local[b * DIGITS + d];
                if (targets[b] >= total)
                    *count = 0;
                else if (d + 1 == digits)
                    *count = hi[b] - lo[b];
                else {
                    const uint64_t bound = ((prefix[b] << bits) | (d + 1)) << left;
                    *count = lower_bound(o, keys, (size_t)lo[b], (size_t)hi[b], bound) - lo[b];
                }
            }
        err = MPI_Allreduce(local, global, (int)(boundaries * DIGITS), MPI_UINT64_T, MPI_SUM, comm);
        if (err != MPI_SUCCESS)
            return err;
        for (size_t b = 0; b < boundaries; ++b) {
            if (targets[b] >= total)
                continue;
            /* The digit of the key at global position targets[b]: the first whose count
               passes it. */
            const uint64_t *g = &global[b * DIGITS], *l = &local[b * DIGITS], wanted = targets[b] - below[b];
            unsigned d = 0;
            while (g[d] <= wanted)
                ++d;
            const uint64_t old_lo = lo[b];
            if (d > 0) {
                below[b] += g[d - 1];
                lo[b] = old_lo + l[d - 1];
            }
            hi[b] = old_lo + l[d];
            prefix[b] = (prefix[b] << bits) | d;
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
