/*
 * Top-k by radix select: the first k keys of the stable sort of keys[0..n), found without
 * sorting them all. The bits [begin_bit, end_bit) of each key's image (masked_image, so
 * ascending images are the wanted order) are taken 8 at a time from the top.
 *
 * First the keys are cut down to candidates in two reads of all n. A sample of the keys
 * (topk_sample) brackets the k-th key's image between two of the sample's, lo and hi, at
 * the ranks expected of it less and more a margin: a bracket by value, so the candidates
 * are about as many whichever bits of the keys vary (floats in [0, 1), small integers).
 * Every work-group counts the keys of its slice below lo and inside [lo, hi]
 * (topk_range_count), and topk_range_plan checks that the k-th key lies inside: then
 * the keys below lo are certainly in, the keys inside the bracket are the candidates, and
 * each slice's offsets follow. Should the sample have misled (with a margin of four
 * standard deviations, rarely), a full count of the top digit (topk_hist, a digit-major
 * table) and topk_plan make the bracket the images of the one top digit that holds the
 * k-th key instead; both kernels return at once otherwise. Every group then splits its
 * slice (topk_split): keys below lo to the survivors, keys inside the bracket to the
 * candidates, both in input order with their positions.
 *
 * The digits are then decided on the candidates alone (about n * 20 / 4096 of any keys
 * for a small k), from the top: a count of the digit of every candidate whose higher
 * digits equal the prefix chosen so far (topk_count) and one work-item's pick
 * (topk_pick). After the last digit the prefix is the k-th key's image T; the candidates
 * below T and the first `remaining` equal to it join the survivors in input order
 * (topk_chunk_counts, topk_chunk_scan, topk_gather). Keys equal in the bit range then all
 * lie in one of the survivors' two runs, each in input order, so the library's stable sort
 * of the survivors with their positions gives the result. Everything the data decides
 * stays on the device.
 *
 * Rows: one work-group selects a whole row at a time (topk_rows_select), each row's
 * survivors in input order; a segmented sort of them follows. Rows longer than a
 * work-group's share (and a flat top-k of a large k, where the tuning row says so) take
 * the prefix of a full sort instead. topk_write writes either out.
 *
 * Shared state: bounds (the prefix and the bracket, radix_keys at TOPK_PREFIX ...), and
 * state[] below.
 */
#define TOPK_RADIX 256
#define TOPK_SAMPLES 4096         /* keys topk_sample reads */
#define TOPK_PREFIX 0             /* bounds: the digits of the k-th key's image chosen so far */
#define TOPK_LO 1                 /* bounds: the bracket [lo, hi] of masked images */
#define TOPK_HI 2
#define TOPK_REMAINING 0          /* state: candidates equal to the prefix still to take */
#define TOPK_BELOW 1              /* survivors the split wrote */
#define TOPK_CANDIDATES 2         /* keys whose image lies in [lo, hi] */
#define TOPK_SETTLED 3            /* 1: the bracket holds the k-th key */
#define TOPK_COUNTS 4             /* TOPK_RADIX digit counts of a pass over the candidates */

#if WG > 32768
#error "top-k packs two counts of a tile into one word: WG must be at most 32768"
#endif

/* Eight keys at once, where one work-item streams a slice (CPUs). */
#if WG == 1
#define TOPK_VECTORS 1
#if KEY_BITS == 8
typedef uchar8 key_vector;
#elif KEY_BITS == 16
typedef ushort8 key_vector;
#elif KEY_BITS == 32
typedef uint8 key_vector;
#else
typedef ulong8 key_vector;
#endif

/* image_of of 8 keys. Tests of a sign bit go through select(), which tests it lane by
   lane: comparisons made vectors of their own crash oclgrind's --uninitialized
   (tests/oclgrind-vector-sum.cl). */
key_vector topk_images8(key_vector key, key_order order)
{
#ifdef NUMPY_ORDER
    const radix_key sign = (radix_key)1 << (KEY_BITS - 1), top = sign | order.nan_above, bottom = (radix_key)~top;
    const radix_key flip = (radix_key)~order.neg_xor, flip_first = flip_before_nans(order);
    /* -0.0 as +0.0: a magnitude is not 0 exactly when magnitude + (sign - 1) has the sign bit */
    const key_vector magnitude_bits = (key_vector)(radix_key)(sign - 1);
    key = select((key_vector)0, key, (key & magnitude_bits) + magnitude_bits);
    const key_vector total =
        key ^ select((key_vector)sign, (key_vector)(radix_key)~(radix_key)0, key) ^ (key_vector)flip_first;
    const key_vector image =
        min(total - (key_vector)bottom, (key_vector)(radix_key)(top - bottom + 1)) + (key_vector)bottom;
    return image ^ (key_vector)(radix_key)(flip ^ flip_first);  /* as image_of */
#else
    return key ^ select((key_vector)order.pos_xor, (key_vector)order.neg_xor, key);
#endif
}

/* The masked images (masked_image; range_mask from range_mask_of) of keys[i .. i + 8). */
key_vector topk_masked_images8(__global const radix_key *keys, uint i, uint begin_bit, radix_key range_mask,
                               key_order order)
{
    return (topk_images8(vload8(0, keys + i), order) >> (key_vector)(radix_key)begin_bit) & (key_vector)range_mask;
}

/* The top digits (see topk_top_digit) of keys[i .. i + 8). */
uint8 topk_top_digits8(__global const radix_key *keys, uint i, uint low, uint mask, key_order order)
{
    return convert_uint8(topk_images8(vload8(0, keys + i), order) >> (key_vector)low) & (uint8)mask;
}
#endif

/* The top digit of the bit range: bits [low, low + 8) of the image, as many as the range
   has (mask). */
uint topk_top_digit(radix_key key, uint low, uint mask, key_order order)
{
    return (uint)(image_of(key, order) >> low) & mask;
}

/* Whether the image's digits above bit `above` equal prefix. */
int topk_matches(radix_key image, uint above, radix_key prefix)
{
    return (above >= KEY_BITS ? (radix_key)0 : (radix_key)(image >> above)) == prefix;
}

/* One more key of this digit, in the group's local counts. */
void topk_count_digit(__local uint *counts, uint digit)
{
#if WG == 1
    ++counts[digit];
#else
    atomic_inc(&counts[digit]);
#endif
}

/* Counts digit `shift / 8` of the keys keys[first], keys[first + stride], ... below
   last whose digits above it equal prefix. */
void topk_count_matching(__global const radix_key *keys, uint first, uint last, uint stride, uint shift,
                         uint begin_bit, uint end_bit, key_order order, radix_key prefix, __local uint *counts)
{
    for (uint i = first; i < last; i = loop_next(i, stride, last)) {
        const radix_key image = masked_image(keys[i], begin_bit, end_bit, order);
        if (topk_matches(image, shift + 8, prefix))
            topk_count_digit(counts, (uint)(image >> shift) & (TOPK_RADIX - 1));
    }
}

/* The digit that holds the want-th key (want >= 1) by the digits' counts; *before
   receives how many keys lie in lower digits. */
uint topk_choose(__local const uint *counts, uint want, uint *before)
{
    uint digit = 0, below = 0;
    while (digit < TOPK_RADIX - 1 && below + counts[digit] < want)
        below += counts[digit++];
    *before = below;
    return digit;
}

/* This work-group's slice [*first, *last) of n keys cut in slices of `slice`. */
void topk_slice(uint n, uint slice, uint *first, uint *last)
{
    *first = (uint)min((ulong)get_group_id(0) * slice, (ulong)n);
    *last = (uint)min((ulong)*first + slice, (ulong)n);
}

#if WG > 1
/* Ranks a tile of WG keys (one per work-item, in input order) in two runs: flag 1 puts
   the key in the first, 1 << 16 in the second, 0 in neither. Returns the packed count of
   each run's keys before this work-item's, and adds the tile's packed totals to *runs.
   Every work-item must call it; scan holds PAD(WG) words. */
BARRIER_FUNCTION uint topk_tile_rank(uint flag, __local uint *scan, uint *runs)
{
    scan[PAD(get_local_id(0))] = flag;
    *runs += group_exclusive_scan(scan, WG);
    return scan[PAD(get_local_id(0))];
}
#endif

/* One work-group: the bracket [lo, hi] of masked images that the k-th of n keys lies in,
   judged from up to TOPK_SAMPLES keys spread evenly: the sample's keys at the ranks
   expected of the k-th key less and more a margin of four standard deviations and 8, each
   found by a radix select of the sample (digits digits from the top, as the candidates'
   below); 0 and the range's largest image where the margin passes the sample's ends. The
   prefix and the candidates' digit counts start at zero. */
__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void topk_sample(__global const radix_key *keys, uint n, uint begin_bit, uint end_bit, uint digits, KEY_ORDER_ARGS,
                 uint k, __global radix_key *bounds, __global uint *state)
{
    __local uint counts[2][TOPK_RADIX], want[2];
    __local radix_key chosen[2];
    const uint lid = get_local_id(0), samples = min(n, (uint)TOPK_SAMPLES);
    for (uint d = lid; d < TOPK_RADIX; d += SCAN_WG)
        state[TOPK_COUNTS + d] = 0;
    if (lid == 0) {
        /* want: the 1-based ranks in the sample of lo and hi; 0 where the margin passes an end */
        const float rank = (float)k * samples / n, margin = 4.0f * sqrt(rank) + 8.0f;
        want[0] = rank - margin < 1.0f ? 0 : (uint)(rank - margin);
        want[1] = rank + margin + 1.0f > samples ? 0 : (uint)(rank + margin) + 1;
        chosen[0] = chosen[1] = 0;
    }
    for (uint digit = digits; digit-- > 0;) {
        const uint shift = 8 * digit;
        for (uint d = lid; d < TOPK_RADIX; d += SCAN_WG)
            counts[0][d] = counts[1][d] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = lid; j < samples; j += SCAN_WG) {
            const radix_key image = masked_image(keys[(ulong)j * n / samples], begin_bit, end_bit, KEY_ORDER);
            for (uint b = 0; b < 2; ++b)
                if (want[b] && topk_matches(image, shift + 8, chosen[b]))
                    atomic_inc(&counts[b][(uint)(image >> shift) & (TOPK_RADIX - 1)]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            for (uint b = 0; b < 2; ++b)
                if (want[b]) {
                    uint before;
                    const uint d = topk_choose(counts[b], want[b], &before);
                    want[b] -= before;
                    chosen[b] = (radix_key)((radix_key)(chosen[b] << 8) | (radix_key)d);
                }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        bounds[TOPK_PREFIX] = 0;
        bounds[TOPK_LO] = want[0] ? chosen[0] : 0;
        bounds[TOPK_HI] = want[1] ? chosen[1] : range_mask_of(begin_bit, end_bit);
    }
}

/* Counts an image below lo in *less, one inside [lo, hi] in *inside. */
void topk_range_add(radix_key image, radix_key lo, radix_key hi, uint *less, uint *inside)
{
    *less += image < lo;
    *inside += image >= lo && image <= hi;
}

/* Per work-group: how many keys of the slice have an image below lo, and how many one
   inside [lo, hi] (below_at[group], equal_at[group]). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_range_count(__global const radix_key *keys, uint n, uint slice, uint begin_bit, uint end_bit, KEY_ORDER_ARGS,
                      __global const radix_key *bounds, __global uint *below_at, __global uint *equal_at)
{
    const radix_key lo = bounds[TOPK_LO], hi = bounds[TOPK_HI];
    uint first, last, less = 0, inside = 0;
    topk_slice(n, slice, &first, &last);
    uint i = loop_start(first, get_local_id(0), last);
#ifdef TOPK_VECTORS
    /* 8 keys at once where they are all below lo or all above hi (no sums of a vector's
       components: oclgrind's --uninitialized crashes on them, tests/oclgrind-vector-sum.cl) */
    const radix_key range_mask = range_mask_of(begin_bit, end_bit);
    for (; last - i >= 8; i += 8) {
        const key_vector images = topk_masked_images8(keys, i, begin_bit, range_mask, KEY_ORDER);
        if (all(images < (key_vector)lo)) {
            less += 8;
        } else if (any(images <= (key_vector)hi)) {
            for (uint j = i; j < i + 8; ++j)
                topk_range_add(masked_image(keys[j], begin_bit, end_bit, KEY_ORDER), lo, hi, &less, &inside);
        }
    }
#endif
    for (; i < last; i = loop_next(i, WG, last))
        topk_range_add(masked_image(keys[i], begin_bit, end_bit, KEY_ORDER), lo, hi, &less, &inside);
#if WG == 1
    below_at[get_group_id(0)] = less;
    equal_at[get_group_id(0)] = inside;
#else
    __local uint sums[2];
    if (get_local_id(0) == 0)
        sums[0] = sums[1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&sums[0], less);
    atomic_add(&sums[1], inside);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        below_at[get_group_id(0)] = sums[0];
        equal_at[get_group_id(0)] = sums[1];
    }
#endif
}

/* below[0 .. count) and equal[0 .. count) made exclusive prefix sums, in place (one
   work-item; few entries); returns their totals. */
uint2 topk_exclusive_sums(__global uint *below, __global uint *equal, uint count)
{
    uint2 sums = (uint2)(0, 0);
    for (uint g = 0; g < count; ++g) {
        const uint2 here = (uint2)(below[g], equal[g]);
        below[g] = sums.x;
        equal[g] = sums.y;
        sums += here;
    }
    return sums;
}

/* One work-item: the slices' counts made exclusive prefix sums (in place), and whether
   the range holds the k-th key: then the keys below it are in and those inside it are
   the candidates. */
__kernel void topk_range_plan(uint groups, uint k, __global uint *state, __global uint *below_at,
                              __global uint *equal_at)
{
    const uint2 sums = topk_exclusive_sums(below_at, equal_at, groups);
    const uint less = sums.x, inside = sums.y;
    const uint settled = less < k && k - less <= inside;
    state[TOPK_SETTLED] = settled;
    if (settled) {
        state[TOPK_REMAINING] = k - less;
        state[TOPK_BELOW] = less;
        state[TOPK_CANDIDATES] = inside;
    }
}

/* Unless settled, per work-group: the top digit's counts of the slice, as column `group`
   of the digit-major table (digit d of group g at d * groups + g). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_hist(__global const radix_key *keys, uint n, uint slice, uint low, uint mask, KEY_ORDER_ARGS,
               __global const uint *state, __global uint *table)
{
    if (state[TOPK_SETTLED])
        return;
    __local uint counts[TOPK_RADIX];
    const uint lid = get_local_id(0);
    for (uint d = lid; d < TOPK_RADIX; d += WG)
        counts[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint first, last;
    topk_slice(n, slice, &first, &last);
    for (uint i = loop_start(first, lid, last); i < last; i = loop_next(i, WG, last))
        topk_count_digit(counts, topk_top_digit(keys[i], low, mask, KEY_ORDER));
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint groups = get_num_groups(0), group = get_group_id(0);
    for (uint d = lid; d < TOPK_RADIX; d += WG)
        table[d * groups + group] = counts[d];
}

/* Unless settled, one work-group: the bracket becomes the images of the one top digit (of
   digits) that holds the k-th key, with the state and each slice's offsets to match. */
__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void topk_plan(__global const uint *table, uint groups, uint k, uint digits, __global radix_key *bounds,
               __global uint *state, __global uint *below_at, __global uint *equal_at)
{
    if (state[TOPK_SETTLED])
        return;
    __local uint totals[TOPK_RADIX], chosen;
    const uint lid = get_local_id(0);
    for (uint d = lid; d < TOPK_RADIX; d += SCAN_WG) {
        uint sum = 0;
        for (uint g = 0; g < groups; ++g)
            sum += table[d * groups + g];
        totals[d] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint before;
        chosen = topk_choose(totals, k, &before);
        state[TOPK_REMAINING] = k - before;
        state[TOPK_BELOW] = before;
        state[TOPK_CANDIDATES] = totals[chosen];
        const uint below = 8 * (digits - 1);  /* the top digit's lowest bit in the masked image */
        const radix_key lo = (radix_key)((radix_key)chosen << below);
        bounds[TOPK_LO] = lo;
        bounds[TOPK_HI] = (radix_key)(lo | (radix_key)(((radix_key)1 << below) - 1));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint digit = chosen;
    for (uint g = lid; g < groups; g += SCAN_WG) {
        uint less = 0;
        for (uint d = 0; d < digit; ++d)
            less += table[d * groups + g];
        below_at[g] = less;
        equal_at[g] = table[digit * groups + g];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0)
        topk_exclusive_sums(below_at, equal_at, groups);
}

/* Key i to the survivors (image below lo) or to the candidates (inside [lo, hi]), each
   with its position, at the next slot of its run. */
void topk_split_key(radix_key key, uint i, radix_key lo, radix_key hi, uint begin_bit, uint end_bit,
                    key_order order, __global radix_key *survivors, __global uint *survivor_positions, uint *less,
                    __global radix_key *candidates, __global uint *candidate_positions, uint *same)
{
    const radix_key image = masked_image(key, begin_bit, end_bit, order);
    if (image < lo) {
        survivors[*less] = key;
        survivor_positions[(*less)++] = i;
    } else if (image <= hi) {
        candidates[*same] = key;
        candidate_positions[(*same)++] = i;
    }
}

/* Per work-group: the slice's keys of an image below lo to the survivors, those inside
   [lo, hi] to the candidates, each with its position, in input order. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_split(__global const radix_key *keys, uint n, uint slice, uint begin_bit, uint end_bit, KEY_ORDER_ARGS,
                __global const radix_key *bounds, __global const uint *below_at, __global const uint *equal_at,
                __global radix_key *survivors, __global uint *survivor_positions, __global radix_key *candidates,
                __global uint *candidate_positions)
{
    const radix_key lo = bounds[TOPK_LO], hi = bounds[TOPK_HI];
    const uint group = get_group_id(0);
    uint first, last, less = below_at[group], same = equal_at[group];
    topk_slice(n, slice, &first, &last);
#if WG == 1
    /* One key at a time (tiles as below take 4x as long on POCL); most keys are out, so
       8 at a time until one of them may be in. */
    uint i = first;
#ifdef TOPK_VECTORS
    const radix_key range_mask = range_mask_of(begin_bit, end_bit);
    for (; last - i >= 8; i += 8)
        if (any(topk_masked_images8(keys, i, begin_bit, range_mask, KEY_ORDER) <= (key_vector)hi))
            for (uint j = i; j < i + 8; ++j)
                topk_split_key(keys[j], j, lo, hi, begin_bit, end_bit, KEY_ORDER, survivors, survivor_positions,
                               &less, candidates, candidate_positions, &same);
#endif
    for (; i < last; ++i)
        topk_split_key(keys[i], i, lo, hi, begin_bit, end_bit, KEY_ORDER, survivors, survivor_positions, &less,
                       candidates, candidate_positions, &same);
#else
    __local uint scan[PAD(WG)];
    for (uint base = first; base < last; base = loop_next(base, WG, last)) {
        const uint i = base + get_local_id(0);  /* used only below last: never wrapped */
        radix_key key = 0;
        uint flag = 0;  /* past the slice: neither run */
        if (get_local_id(0) < last - base) {
            key = keys[i];
            const radix_key image = masked_image(key, begin_bit, end_bit, KEY_ORDER);
            flag = image < lo ? 1u : image <= hi ? 1u << 16 : 0u;
        }
        uint tile = 0;
        const uint before = topk_tile_rank(flag, scan, &tile);
        if (flag == 1) {
            survivors[less + (before & 0xFFFF)] = key;
            survivor_positions[less + (before & 0xFFFF)] = i;
        } else if (flag) {
            candidates[same + (before >> 16)] = key;
            candidate_positions[same + (before >> 16)] = i;
        }
        less += tile & 0xFFFF;
        same += tile >> 16;
    }
#endif
}

/* Counts digit `digit` (bits 8 * digit .. of the masked image) of the candidates that
   match the prefix, per work-group in local memory, then into the shared counts. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_count(__global const radix_key *candidates, uint digit, uint begin_bit, uint end_bit,
                         KEY_ORDER_ARGS, __global const radix_key *prefix, __global uint *state)
{
    __local uint counts[TOPK_RADIX];
    const uint lid = get_local_id(0), shift = 8 * digit, n = state[TOPK_CANDIDATES];
    for (uint d = lid; d < TOPK_RADIX; d += WG)
        counts[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    topk_count_matching(candidates, get_global_id(0), n, get_global_size(0), shift, begin_bit, end_bit, KEY_ORDER,
                        *prefix, counts);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < TOPK_RADIX; d += WG)
        if (counts[d])
            atomic_add(&state[TOPK_COUNTS + d], counts[d]);
}

/* One work-item: the digit holding the remaining-th matching candidate becomes the
   prefix's lowest; the candidates of lower digits are in. The counts go back to zero. */
__kernel void topk_pick(__global radix_key *prefix, __global uint *state)
{
    __local uint counts[TOPK_RADIX];
    for (uint d = 0; d < TOPK_RADIX; ++d) {
        counts[d] = state[TOPK_COUNTS + d];
        state[TOPK_COUNTS + d] = 0;
    }
    uint before;
    const uint digit = topk_choose(counts, state[TOPK_REMAINING], &before);
    state[TOPK_REMAINING] -= before;
    *prefix = (radix_key)((radix_key)(*prefix << 8) | (radix_key)digit);
}

/* A key's slot among the survivors when it lies below the threshold (below) or equals it
   (equal), with less_before keys below it and same_before equal to it before it in input
   order; UINT_MAX when it is out. */
uint topk_slot(int below, int equal, uint less_before, uint same_before, uint remaining)
{
    return below ? less_before + min(same_before, remaining)
           : equal && same_before < remaining ? less_before + same_before : UINT_MAX;
}

/* A sequential gather's next key (at position): to its slot among the survivors (see
   topk_slot) when it is in; less and same count the keys below and equal to threshold. */
void topk_place(radix_key key, radix_key threshold, uint position, uint remaining, uint *less, uint *same,
                __global radix_key *survivors, __global uint *survivor_positions, uint begin_bit, uint end_bit,
                key_order order)
{
    const radix_key image = masked_image(key, begin_bit, end_bit, order);
    const int below_it = image < threshold, equal_it = image == threshold;
    const uint slot = topk_slot(below_it, equal_it, *less, *same, remaining);
    *less += below_it;
    *same += equal_it;
    if (slot != UINT_MAX) {
        survivors[slot] = key;
        survivor_positions[slot] = position;
    }
}

/* Work-item g's chunk of the candidates (each of the global size's chunks alike). */
void topk_chunk(__global const uint *state, uint *first, uint *last)
{
    const uint n = state[TOPK_CANDIDATES], chunks = get_global_size(0);
    /* (a division and a remainder of the same numbers become LLVM's freeze, which oclgrind's
       --uninitialized does not know) */
    const uint chunk = (uint)(((ulong)n + chunks - 1) / chunks);
    *first = (uint)min((ulong)get_global_id(0) * chunk, (ulong)n);
    *last = (uint)min((ulong)*first + chunk, (ulong)n);
}

/* Per work-item: how many candidates of its chunk lie below the threshold, and how many
   equal it (below[g], equal[g]). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_chunk_counts(__global const radix_key *candidates, uint begin_bit, uint end_bit, KEY_ORDER_ARGS,
                                __global const radix_key *prefix, __global const uint *state,
                                __global uint *below, __global uint *equal)
{
    uint first, last, less = 0, same = 0;
    topk_chunk(state, &first, &last);
    const radix_key threshold = *prefix;
    for (uint i = first; i < last; ++i) {
        const radix_key image = masked_image(candidates[i], begin_bit, end_bit, KEY_ORDER);
        less += image < threshold;
        same += image == threshold;
    }
    below[get_global_id(0)] = less;
    equal[get_global_id(0)] = same;
}

/* One work-item: the chunks' counts made exclusive prefix sums (few chunks). */
__kernel void topk_chunk_scan(__global uint *below, __global uint *equal, uint chunks)
{
    topk_exclusive_sums(below, equal, chunks);
}

/* Per work-item: its chunk's candidates that survive, in input order, with their
   positions, after the split's survivors: one below the threshold at (surviving
   candidates before it), one equal to it while fewer than `remaining` equal ones came
   before. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_gather(__global const radix_key *candidates, __global const uint *candidate_positions,
                          uint begin_bit, uint end_bit, KEY_ORDER_ARGS, __global const radix_key *prefix,
                          __global const uint *state, __global const uint *below, __global const uint *equal,
                          __global radix_key *survivors, __global uint *survivor_positions)
{
    uint first, last;
    topk_chunk(state, &first, &last);
    const radix_key threshold = *prefix;
    const uint remaining = state[TOPK_REMAINING], base = state[TOPK_BELOW];
    uint less = below[get_global_id(0)], same = equal[get_global_id(0)];
    for (uint i = first; i < last; ++i)
        topk_place(candidates[i], threshold, candidate_positions[i], remaining, &less, &same, survivors + base,
                   survivor_positions + base, begin_bit, end_bit, KEY_ORDER);
}

/*
 * Rows (row_length keys each, row-major), one row at a time per work-group: the row's
 * radix select (digits digits from the top, the top one bits [low, low + 8) of the image
 * as many as the range has (mask); every pass over the whole row, which a core's cache or
 * the group's reads keep close), then its k survivors in input order, with their
 * positions in the whole array, at row * k.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void topk_rows_select(__global const radix_key *keys, uint rows, uint row_length, uint k, uint digits, uint low,
                      uint mask, uint begin_bit, uint end_bit, KEY_ORDER_ARGS, __global radix_key *survivors,
                      __global uint *survivor_positions)
{
    __local uint counts[TOPK_RADIX], chosen_remaining;
#if WG > 1
    __local uint scan[PAD(WG)];
#endif
    __local radix_key chosen_prefix;
    const uint lid = get_local_id(0);
    for (uint row = get_group_id(0); row < rows; row = loop_next(row, get_num_groups(0), rows)) {
        const uint row_start = row * row_length;  /* n fits a uint */
        __global const radix_key *row_keys = keys + row_start;
        radix_key prefix = 0;
        uint remaining = k, top = 0;  /* top: the k-th key's top digit, once chosen */
        for (uint digit = digits; digit-- > 0;) {
            const uint shift = 8 * digit;
            for (uint d = lid; d < TOPK_RADIX; d += WG)
                counts[d] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
#ifdef TOPK_VECTORS
            if (digit + 1 < digits) {  /* past the top digit: only keys of the chosen one can match */
                uint j = 0;
                for (; j + 8 <= row_length; j += 8)
                    if (any(topk_top_digits8(row_keys, j, low, mask, KEY_ORDER) == (uint8)top))
                        topk_count_matching(row_keys, j, j + 8, 1, shift, begin_bit, end_bit, KEY_ORDER, prefix,
                                            counts);
                topk_count_matching(row_keys, j, row_length, 1, shift, begin_bit, end_bit, KEY_ORDER, prefix, counts);
            } else
#endif
                topk_count_matching(row_keys, lid, row_length, WG, shift, begin_bit, end_bit, KEY_ORDER, prefix,
                                    counts);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0) {
                uint before;
                const uint digit_here = topk_choose(counts, remaining, &before);
                chosen_prefix = (radix_key)((radix_key)(prefix << 8) | (radix_key)digit_here);
                chosen_remaining = remaining - before;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            prefix = chosen_prefix;
            remaining = chosen_remaining;
            if (digit + 1 == digits)
                top = (uint)prefix;
        }
        __global radix_key *row_survivors = survivors + (size_t)row * k;
        __global uint *row_positions = survivor_positions + (size_t)row * k;
        uint less = 0, same = 0;
#if WG == 1
        uint j = 0;
#ifdef TOPK_VECTORS
        for (; j + 8 <= row_length; j += 8)  /* 8 keys whose top digits are all above the k-th's are out */
            if (any(topk_top_digits8(row_keys, j, low, mask, KEY_ORDER) <= (uint8)top))
                for (uint i = j; i < j + 8; ++i)
                    topk_place(row_keys[i], prefix, row_start + i, remaining, &less, &same, row_survivors,
                               row_positions, begin_bit, end_bit, KEY_ORDER);
#endif
        for (; j < row_length; ++j)
            topk_place(row_keys[j], prefix, row_start + j, remaining, &less, &same, row_survivors, row_positions,
                       begin_bit, end_bit, KEY_ORDER);
#else
        for (uint base = 0; base < row_length; base += WG) {
            const uint j = base + lid;
            radix_key key = 0, image = 0;
            uint flag = 0;
            if (j < row_length) {
                key = row_keys[j];
                image = masked_image(key, begin_bit, end_bit, KEY_ORDER);
                flag = image < prefix ? 1u : image == prefix ? 1u << 16 : 0u;
            }
            uint tile = 0;
            const uint before = topk_tile_rank(flag, scan, &tile);
            const uint slot = topk_slot(flag == 1, flag == 1u << 16, less + (before & 0xFFFF), same + (before >> 16),
                                        remaining);
            if (slot != UINT_MAX) {
                row_survivors[slot] = key;
                row_positions[slot] = row_start + j;
            }
            less += tile & 0xFFFF;
            same += tile >> 16;
        }
#endif
    }
}

/* Index i as index_words words (1, or 2: a u64 in the device's byte order). */
void topk_put_index(__global uint *indices, uint index_words, uint i, uint position)
{
    if (index_words == 1) {
        indices[i] = position;
    } else {
        indices[2 * (size_t)i + INDEX_LOW_WORD] = position;  /* past 2^31 outputs: not 32-bit */
        indices[2 * (size_t)i + 1 - INDEX_LOW_WORD] = 0;
    }
}

/* Each row's first k out (count = rows * k): row r's positions (in the whole array, in the
   wanted order) are order[r * order_stride ...]: the sorted survivors' (stride k) or a full
   argsort's (stride row_length). Keys are read at their positions (unless out_keys is not
   wanted), indices written as positions within the row, of index_words words. */
__kernel void topk_write(__global const radix_key *keys, __global const uint *order, uint order_stride,
                         uint row_length, uint k, uint count, __global radix_key *out_keys, uint want_keys,
                         __global uint *out_indices, uint index_words)
{
    const uint i = get_global_id(0);
    if (i >= count)
        return;
    const uint row = i / k;  /* (no i % k: see topk_chunk) */
    const uint position = order[row * order_stride + i - row * k];
    if (want_keys)
        out_keys[i] = keys[position];
    if (index_words)
        topk_put_index(out_indices, index_words, i, position - row * row_length);
}
