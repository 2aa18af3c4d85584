/*
 * Top-k by radix select: the first k keys of the stable sort of keys[0..n), found without
 * sorting them all. The bits [begin_bit, end_bit) of each key's image (masked_image, so
 * ascending images are the wanted order) are taken 8 at a time from the top: a pass counts
 * the digit of every key whose higher digits equal the prefix chosen so far (topk_count),
 * and one work-item picks the digit that holds the k-th key (topk_pick). After the last
 * digit, the prefix is the k-th key's image T: the survivors are every key below T and the
 * first `remaining` keys equal to T, gathered in their input order (topk_chunk_counts,
 * topk_chunk_scan, topk_gather) and then sorted stably with their positions by the
 * library's sort. Everything the data decides stays on the device.
 *
 * Shared state: prefix (one radix_key), and state[] below.
 */
#define TOPK_RADIX 256
#define TOPK_REMAINING 0          /* keys equal to the prefix still to take */
#define TOPK_COUNTS 1             /* TOPK_RADIX digit counts of the current pass */
#define TOPK_STATE_WORDS (1 + TOPK_RADIX)

/* The prefix 0, k keys to take, the counts zero: before the first pass. */
__kernel void topk_start(__global radix_key *prefix, __global uint *state, uint k)
{
    const uint i = get_global_id(0);
    if (i == 0) {
        *prefix = 0;
        state[TOPK_REMAINING] = k;
    }
    if (i < TOPK_RADIX)
        state[TOPK_COUNTS + i] = 0;
}

/* Whether the image's digits above bit `above` equal prefix. */
int topk_matches(radix_key image, uint above, radix_key prefix)
{
    return (above >= KEY_BITS ? (radix_key)0 : (radix_key)(image >> above)) == prefix;
}

/* Counts digit `digit` (bits 8 * digit .. of the masked image) of the keys that match the
   prefix, per work-group in local memory, then into the shared counts. */
__kernel void topk_count(__global const radix_key *keys, uint n, uint digit, uint begin_bit, uint end_bit,
                         KEY_ORDER_ARGS, __global const radix_key *prefix, __global uint *state)
{
    __local uint counts[TOPK_RADIX];
    const uint lid = get_local_id(0), wg = get_local_size(0), shift = 8 * digit;
    for (uint d = lid; d < TOPK_RADIX; d += wg)
        counts[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const radix_key want = *prefix;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        const radix_key image = masked_image(keys[i], begin_bit, end_bit, KEY_ORDER);
        if (topk_matches(image, shift + 8, want)) {
#if WG == 1
            ++counts[(uint)(image >> shift) & (TOPK_RADIX - 1)];
#else
            atomic_inc(&counts[(uint)(image >> shift) & (TOPK_RADIX - 1)]);
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < TOPK_RADIX; d += wg)
        if (counts[d])
            atomic_add(&state[TOPK_COUNTS + d], counts[d]);
}

/* One work-item: the digit holding the remaining-th matching key becomes the prefix's
   lowest; the keys of lower digits are in. The counts go back to zero. */
__kernel void topk_pick(__global radix_key *prefix, __global uint *state)
{
    const uint want = state[TOPK_REMAINING];
    uint digit = 0, before = 0;
    while (digit < TOPK_RADIX - 1 && before + state[TOPK_COUNTS + digit] < want)
        before += state[TOPK_COUNTS + digit++];
    state[TOPK_REMAINING] = want - before;
    *prefix = (radix_key)((radix_key)(*prefix << 8) | (radix_key)digit);
    for (uint d = 0; d < TOPK_RADIX; ++d)
        state[TOPK_COUNTS + d] = 0;
}

/* Work-item g owns keys [g * chunk, (g + 1) * chunk): how many are below the threshold,
   and how many equal to it (below[g], equal[g]). */
__kernel void topk_chunk_counts(__global const radix_key *keys, uint n, uint chunk, uint begin_bit, uint end_bit,
                                KEY_ORDER_ARGS, __global const radix_key *prefix, __global uint *below,
                                __global uint *equal)
{
    const uint g = get_global_id(0), first = min(g * chunk, n), last = min(first + chunk, n);
    const radix_key threshold = *prefix;
    uint less = 0, same = 0;
    for (uint i = first; i < last; ++i) {
        const radix_key image = masked_image(keys[i], begin_bit, end_bit, KEY_ORDER);
        less += image < threshold;
        same += image == threshold;
    }
    below[g] = less;
    equal[g] = same;
}

/* One work-item: the chunks' counts made exclusive prefix sums (few chunks). */
__kernel void topk_chunk_scan(__global uint *below, __global uint *equal, uint chunks)
{
    uint less = 0, same = 0;
    for (uint g = 0; g < chunks; ++g) {
        const uint l = below[g], s = equal[g];
        below[g] = less;
        equal[g] = same;
        less += l;
        same += s;
    }
}

/* Work-item g writes its chunk's survivors, in input order, with their positions: a key
   below the threshold at (survivors before it), one equal to it while fewer than
   `remaining` equal ones came before. */
__kernel void topk_gather(__global const radix_key *keys, uint n, uint chunk, uint begin_bit, uint end_bit,
                          KEY_ORDER_ARGS, __global const radix_key *prefix, __global const uint *state,
                          __global const uint *below, __global const uint *equal, __global radix_key *out_keys,
                          __global uint *out_positions)
{
    const uint g = get_global_id(0), first = min(g * chunk, n), last = min(first + chunk, n);
    const radix_key threshold = *prefix;
    const uint remaining = state[TOPK_REMAINING];
    uint less = below[g], same = equal[g];
    for (uint i = first; i < last; ++i) {
        const radix_key key = keys[i], image = masked_image(key, begin_bit, end_bit, KEY_ORDER);
        uint slot = UINT_MAX;
        if (image < threshold)
            slot = less++ + min(same, remaining);
        else if (image == threshold && same < remaining)
            slot = less + same++;
        if (slot != UINT_MAX) {
            out_keys[slot] = key;
            out_positions[slot] = i;
        }
    }
}

/* Index i as index_words words (1, or 2: a u64 in the device's byte order). */
void topk_put_index(__global uint *indices, uint index_words, uint i, uint position)
{
    if (index_words == 1) {
        indices[i] = position;
    } else {
        indices[2 * i + INDEX_LOW_WORD] = position;
        indices[2 * i + 1 - INDEX_LOW_WORD] = 0;
    }
}

/* The sorted survivors out: keys (unless out_keys is not wanted) and positions as
   indices of index_words words. */
__kernel void topk_write(__global const radix_key *keys, __global const uint *positions, uint k,
                         __global radix_key *out_keys, uint want_keys, __global uint *out_indices,
                         uint index_words)
{
    const uint i = get_global_id(0);
    if (i >= k)
        return;
    if (want_keys)
        out_keys[i] = keys[i];
    if (index_words)
        topk_put_index(out_indices, index_words, i, positions[i]);
}

/* Rows (work-item `row`): from the row's stable permutation (positions in the whole
   array), its first k keys and their positions within the row. */
__kernel void topk_rows_write(__global const radix_key *keys, __global const uint *order, uint rows,
                              uint row_length, uint k, __global radix_key *out_keys, uint want_keys,
                              __global uint *out_indices, uint index_words)
{
    const uint row = get_global_id(0);
    if (row >= rows)
        return;
    for (uint j = 0; j < k; ++j) {
        const uint position = order[row * row_length + j], i = row * k + j;
        if (want_keys)
            out_keys[i] = keys[position];
        if (index_words)
            topk_put_index(out_indices, index_words, i, position - row * row_length);
    }
}
