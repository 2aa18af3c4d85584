/*
 * Definitions shared by the radix-sort kernels. The host prepends this file to the kernel
 * files and sets the shape of the code with -D build options:
 *   KEY_BITS     8, 16, 32 or 64: width of a key, which kernels read and write as such
 *   VALUE_SIZE   0 (keys only), 4, 8 or 16: bytes of the value moved with each key
 *   RADIX_BITS   1..8: bits sorted per pass (RADIX digits)
 *   WG           work-items per group of the sort kernels, a power of two
 *   KPT          keys per work-item in a tile (a tile is WG * KPT keys)
 *   RANK_BITS    1..RADIX_BITS: bits of the digit ranked per round inside a tile
 *   HIST_COPIES  sub-histograms per work-group, a power of two up to WG; work-item i counts
 *                into copy i % HIST_COPIES, with local atomics unless it owns its copy
 *   FUSED        1: each scatter also counts the next executed pass's digits per
 *                destination block, so no pass but the first reads the keys for its
 *                histogram (for up to MAX_GROUPS groups); 0: a histogram kernel per pass
 *   MAX_GROUPS   most work-groups the FUSED tables hold
 *   SMALL_N      most keys radix_sort_small sorts in one work-group (0: no such kernel)
 *   SCAN_WG      work-items per group of the table scan, a power of two
 *   CLES_KHR_INT64  defined for an embedded-profile device whose 64-bit integers come from
 *                the cles_khr_int64 extension, which 64-bit keys must enable
 * What varies per call (bit range, key transform, direction, pass) comes in as kernel
 * arguments, so one program serves every key type of one width.
 */
#if !defined(KEY_BITS) || (KEY_BITS != 8 && KEY_BITS != 16 && KEY_BITS != 32 && KEY_BITS != 64)
#error "KEY_BITS must be 8, 16, 32 or 64"
#endif
#if !defined(VALUE_SIZE) || (VALUE_SIZE != 0 && VALUE_SIZE != 4 && VALUE_SIZE != 8 && VALUE_SIZE != 16)
#error "VALUE_SIZE must be 0, 4, 8 or 16"
#endif
#if !defined(RADIX_BITS) || RADIX_BITS < 1 || RADIX_BITS > 8
#error "RADIX_BITS must be 1..8"
#endif
#if !defined(WG) || WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif
#if !defined(KPT) || KPT < 1
#error "KPT must be at least 1"
#endif
#if !defined(RANK_BITS) || RANK_BITS < 1 || RANK_BITS > RADIX_BITS
#error "RANK_BITS must be 1..RADIX_BITS"
#endif
#if !defined(HIST_COPIES) || HIST_COPIES < 1 || HIST_COPIES > WG || (HIST_COPIES & (HIST_COPIES - 1)) != 0
#error "HIST_COPIES must be a power of two up to WG"
#endif
#if !defined(FUSED) || (FUSED != 0 && FUSED != 1) || !defined(MAX_GROUPS) || MAX_GROUPS < 1
#error "FUSED must be 0 or 1, MAX_GROUPS at least 1"
#endif
#if !defined(SMALL_N) || SMALL_N < 0
#error "SMALL_N must be defined (0: no single-launch kernel)"
#endif
#if !defined(SCAN_WG) || SCAN_WG < 1 || (SCAN_WG & (SCAN_WG - 1)) != 0
#error "SCAN_WG must be a power of two"
#endif

#if defined(CLES_KHR_INT64) && KEY_BITS == 64
#pragma OPENCL EXTENSION cles_khr_int64 : enable  /* an embedded-profile device's 64-bit integers */
#endif

#define RADIX (1u << RADIX_BITS)
#define TILE (WG * KPT)
#define RANK_RADIX (1u << RANK_BITS)
#define RANK_ROUNDS ((RADIX_BITS + RANK_BITS - 1) / RANK_BITS)
#define PASSES ((KEY_BITS + RADIX_BITS - 1) / RADIX_BITS)  /* most passes of a sort */
/* Words of the counters of rank_round and local_sort: a column per work-item, or with one
   work-item a row per RANK_BITS-wide round of the key (local_sort counts them all at once)
   and at least a row per span of rank_round. */
#if WG == 1
#define RANK_ROWS ((KEY_BITS + RANK_BITS - 1) / RANK_BITS)
#define RANK_SPANS 2
#define RANK_COUNTERS (RANK_RADIX * (RANK_ROWS > RANK_SPANS ? RANK_ROWS : RANK_SPANS))
#else
#define RANK_COUNTERS (RANK_RADIX * WG)
#endif

/*
 * Functions that reach a barrier. On Intel's CPU runtime (2026.2; the host defines
 * INLINE_BARRIER_FUNCTIONS there) they are inlined into every kernel that calls them: kept
 * out of line and called from several kernels of one program, that runtime runs them
 * vectorised into a segmentation fault (any shape of more than one work-item that ranks
 * in rounds: a pairs sort of 100 keys with WG=64,RANK_BITS=4 on the one-launch path,
 * larger ones in the scatter or the engine; tests/intel-cpu-repro.py). Elsewhere the
 * compiler decides: forced inline, POCL's pthread device sorted the engine's medium
 * segments wrong at GPU-like shapes and oclgrind could not create seg_local.
 */
#ifdef INLINE_BARRIER_FUNCTIONS
#define BARRIER_FUNCTION __attribute__((always_inline))
#else
#define BARRIER_FUNCTION
#endif

/*
 * Local memory on GPUs is spread over 32 banks of 4 bytes, and work-items of one warp or
 * wavefront that touch words of the same bank wait for each other. Arrays that work-items
 * read at a stride get one spare word per 32, so that strided accesses land in different
 * banks: element i of such an array lives at PAD(i). Those are the tiles of keys, which
 * work-items rank in contiguous chunks, and every array the Blelloch scan's tree works on
 * (group_exclusive_scan). With one work-item per group, as on CPUs, there is nothing to
 * spread.
 */
#if WG > 1
#define PAD(i) ((i) + ((i) >> 5))
#else
#define PAD(i) (i)
#endif

/* The word of an 8-byte index that holds its low 32 bits, in the device's byte order. */
#ifdef __ENDIAN_LITTLE__
#define INDEX_LOW_WORD 0
#else
#define INDEX_LOW_WORD 1
#endif

#if KEY_BITS == 8
typedef uchar radix_key;
#elif KEY_BITS == 16
typedef ushort radix_key;
#elif KEY_BITS == 32
typedef uint radix_key;
#else
typedef ulong radix_key;
#endif

/* Values are only moved, never interpreted: vectors of uint avoid needing 64-bit integers. */
#if VALUE_SIZE == 4
typedef uint radix_value;
#elif VALUE_SIZE == 8
typedef uint2 radix_value;
#elif VALUE_SIZE == 16
typedef uint4 radix_value;
#endif

/* Arguments and statements that exist only when values move with the keys. */
#if VALUE_SIZE
#define IF_VALUES(...) __VA_ARGS__
#else
#define IF_VALUES(...)
#endif

/*
 * How a pass reads the digit of a key. The key is first mapped to an unsigned image
 * whose unsigned order is the wanted order: image = key ^ (sign bit set ? neg_xor :
 * pos_xor) (signed: flip the sign bit; float: flip every bit of negatives, the sign bit
 * of others; descending: flip every bit as well). In numpy's float order (NUMPY_ORDER;
 * nan_above: the magnitude bits of +inf) every NaN is first read as the one NaN just above
 * +inf and -0.0 as +0.0; with nan_above's sign bit set too (key_order.h: a _NAN_LAST type,
 * descending) every NaN as the one just below -inf, so that NaNs end last after the flip.
 * Keys themselves move unchanged.
 */
typedef struct key_order {
    radix_key pos_xor, neg_xor, nan_above;
} key_order;

/* A kernel's key order arguments, and the key_order they make. */
#define KEY_ORDER_ARGS radix_key pos_xor, radix_key neg_xor, radix_key nan_above
#define KEY_ORDER make_key_order(pos_xor, neg_xor, nan_above)

key_order make_key_order(radix_key pos_xor, radix_key neg_xor, radix_key nan_above)
{
    const key_order order = { pos_xor, neg_xor, nan_above };
    return order;
}

typedef struct digit_spec {
    key_order order;
    uint shift, mask;
} digit_spec;

#ifdef NUMPY_ORDER
/* In numpy's float order, the flip of a descending order that comes before the min that
   places NaNs (image_of): all of it for a _NAN_LAST type (nan_above's sign bit set), else
   none (it comes after). */
radix_key flip_before_nans(key_order order)
{
    return (order.nan_above >> (KEY_BITS - 1)) ? (radix_key)~order.neg_xor : (radix_key)0;
}
#endif

radix_key image_of(radix_key key, key_order order)
{
#ifdef NUMPY_ORDER
    /* -0.0 as +0.0, then the ascending totalOrder image, in which NaNs lie below the image
       of -inf (bottom) or above that of +inf (top): offset by bottom, they all lie above
       top's, and one min puts them just above it (measured on POCL: 1.7x faster than
       testing each key's magnitude for NaN). Descending (neg_xor 0) flips every bit:
       after that min, or (NaNs last) before it, as the flip maps [bottom, top] onto itself
       and NaNs onto NaNs. */
    const radix_key sign = (radix_key)1 << (KEY_BITS - 1), top = sign | order.nan_above, bottom = (radix_key)~top;
    const radix_key flip = (radix_key)~order.neg_xor, flip_first = flip_before_nans(order);
    key = (key & (radix_key)(sign - 1)) ? key : (radix_key)0;
    const radix_key total = key ^ ((key >> (KEY_BITS - 1)) ? (radix_key)~(radix_key)0 : sign) ^ flip_first;
    const radix_key image = (radix_key)(min((radix_key)(total - bottom), (radix_key)(top - bottom + 1)) + bottom);
    return image ^ (radix_key)(flip ^ flip_first);
#else
    return key ^ ((key >> (KEY_BITS - 1)) ? order.neg_xor : order.pos_xor);
#endif
}

uint digit_of(radix_key key, digit_spec spec)
{
    return (uint)(image_of(key, spec.order) >> spec.shift) & spec.mask;
}

/* The largest number of the bits [begin_bit, end_bit): their mask, from bit 0. */
radix_key range_mask_of(uint begin_bit, uint end_bit)
{
    const uint bits = end_bit - begin_bit;
    return bits >= KEY_BITS ? ~(radix_key)0 : (((radix_key)1 << bits) - 1);
}

/* The bits [begin_bit, end_bit) of key's image, as a number. */
radix_key masked_image(radix_key key, uint begin_bit, uint end_bit, key_order order)
{
    return (image_of(key, order) >> begin_bit) & range_mask_of(begin_bit, end_bit);
}

/* The digit of pass `pass` of a sort by bits [begin_bit, end_bit): RADIX_BITS bits from
   begin_bit + pass * RADIX_BITS, fewer in a last pass that reaches end_bit. */
digit_spec pass_digit(uint pass, uint begin_bit, uint end_bit, key_order order)
{
    const uint shift = begin_bit + pass * RADIX_BITS, bits = min((uint)RADIX_BITS, end_bit - shift);
    const digit_spec spec = { order, shift, (1u << bits) - 1 };
    return spec;
}

/*
 * The plan of one sort, written on the device by radix_plan once every pass's digit
 * counts are known; every later kernel reads it, so that nothing the data decides
 * needs the host:
 *   plan[PLAN_COUNT]          passes that move data
 *   plan[PLAN_PASS + p]       pass p's index among those (SKIPPED: every key has the
 *                             same digit in pass p, so it changes nothing)
 *   plan[PLAN_NEXT + p]       the next pass that moves data after p (SKIPPED: none)
 *   plan[PLAN_TRIVIAL + p * RADIX + d]  1 when digit d of pass p holds every key (radix_trivial)
 * Executed pass j reads the input for j == 0 and then the temporaries in turn; its
 * writes go to temporary 1 for even j and temporary 2 for odd j (see SOURCE, TARGET).
 */
#define PLAN_COUNT 0
#define PLAN_PASS 1
#define PLAN_NEXT (1 + PASSES)
#define PLAN_TRIVIAL (1 + 2 * PASSES)
#define SKIPPED 0xFFFFFFFFu

#define SOURCE(j, input, first, second) ((j) == 0 ? (input) : ((j) & 1) ? (first) : (second))
#define TARGET(j, first, second) (((j) & 1) ? (second) : (first))

/* Loops over absolute indices [first, last) (last up to 2^32 - 1, the most keys a call
   takes) in steps: the first index at first + offset, and the one after i, each last once
   the range is done, never an index wrapped past 2^32 (which would start over below last). */
uint loop_start(uint first, uint offset, uint last)
{
    return last - first > offset ? first + offset : last;
}

uint loop_next(uint i, uint step, uint last)
{
    return last - i > step ? i + step : last;
}

/* Number of TILE-sized pieces of a block of count keys, without overflowing uint. */
uint tiles_in(uint count)
{
    return count / TILE + (count % TILE != 0);
}

/* Keys of the block that this work-group handles: block_len from group * block_len on. */
uint block_count(uint n, uint block_len)
{
    uint begin = get_group_id(0) * block_len;
    return min(block_len, n - begin);
}

/* Adds one to counter d of this work-item's copy. */
void count_digit(__local uint *copy, uint d)
{
#if HIST_COPIES == WG
    ++copy[d];  /* a copy of its own: no other work-item touches it */
#else
    atomic_inc(&copy[d]);
#endif
}

/*
 * Exclusive prefix sum of the count elements of data, laid out at PAD(i) (Blelloch:
 * up-sweep builds partial sums in a tree, down-sweep pushes prefixes back down),
 * returning the total. count is a power of two; every work-item of the group must call
 * it. It starts and ends with a barrier, so data written before the call is seen, and the
 * result after it.
 */
BARRIER_FUNCTION uint group_exclusive_scan(__local uint *data, uint count)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    uint offset = 1;
    for (uint pairs = count >> 1; pairs > 0; pairs >>= 1, offset <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);  /* the previous level's sums are complete */
        for (uint p = lid; p < pairs; p += size) {
            const uint right = offset * (2 * p + 2) - 1;
            data[PAD(right)] += data[PAD(right - offset)];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the root holds the total */
    const uint total = data[PAD(count - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);  /* everyone read the total before the root is cleared */
    if (lid == 0)
        data[PAD(count - 1)] = 0;
    for (uint pairs = 1; pairs < count; pairs <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);  /* the level above is pushed down */
        for (uint p = lid; p < pairs; p += size) {
            const uint right = offset * (2 * p + 2) - 1;
            const uint left_sum = data[PAD(right - offset)];
            data[PAD(right - offset)] = data[PAD(right)];
            data[PAD(right)] += left_sum;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the prefixes are complete */
    return total;
}

/*
 * One stable ranking round over the count keys of a tile (at PAD(i)): moves keys (and
 * values) from `from` to `to`, ordered by digit_of(key, spec), keeping the order of keys
 * with equal digits. Work-item i owns the keys [i * chunk, (i + 1) * chunk) and counts
 * their digits in its own column of counters (digit s at PAD(s * WG + i)); the exclusive
 * scan of the counters, digit-major, gives each (digit, work-item) the slot of its first
 * key, and the work-item's running count places the rest. spec.mask must be below
 * RANK_RADIX. Returns 0, moving nothing, when every key has the same digit: `from` is
 * then already in order. run_begin, unless 0, receives where each digit's run starts in
 * the result (digit s at PAD(s)). Every work-item must call it; it starts and ends with a
 * barrier, and its result is the same in every work-item.
 */
#if WG == 1
/* Moves key i of `from` (and its value) to the next slot of its digit among the counters
   of span h (rank_round, one work-item). */
void place_key(__local const radix_key *from, __local radix_key *to,
               IF_VALUES(__local const radix_value *from_values, __local radix_value *to_values,)
               uint i, uint h, digit_spec spec, __local uint *counters)
{
    const radix_key key = from[i];
    const uint slot = counters[h * RANK_RADIX + digit_of(key, spec)]++;
    to[slot] = key;
    IF_VALUES(to_values[slot] = from_values[i];)
}

/*
 * rank_round for one work-item (chunk unused): the keys in RANK_SPANS contiguous spans,
 * taken a key of each span in turn with counters of each span's own (row h), so that a run
 * of equal digits (presorted or skewed keys) is not one chain of increments of one counter
 * through memory, each waiting for the one before (presorted keys: 1.7x slower scatters on
 * POCL). Two spans: with four, random keys ranked 15 % slower. Stable: within a digit,
 * span h's keys come after those of the spans before it.
 */
int rank_round(__local const radix_key *from, __local radix_key *to,
               IF_VALUES(__local const radix_value *from_values, __local radix_value *to_values,)
               uint count, uint chunk, digit_spec spec, __local uint *counters, __local uint *moved,
               __local uint *run_begin)
{
    /* Spans of `span` keys (at least count / RANK_SPANS, and off a power of two, so that
       the spans' lines fall in different cache sets); the last one holds fewer (none when
       count is tiny). Its end, `last`, bounds the loops that take every span (not as
       count - last, which oclgrind 21.10 cannot run: a saturating subtraction). */
    const uint span = count / RANK_SPANS + 17, last = (RANK_SPANS - 1) * span;
    for (uint i = 0; i < RANK_SPANS * RANK_RADIX; ++i)
        counters[i] = 0;
    uint t = 0;
    for (; last + t < count; ++t)
#pragma unroll
        for (uint h = 0; h < RANK_SPANS; ++h)
            ++counters[h * RANK_RADIX + digit_of(from[h * span + t], spec)];
    for (; t < span; ++t)  /* past the last span's keys */
        for (uint h = 0; h + 1 < RANK_SPANS && h * span + t < count; ++h)
            ++counters[h * RANK_RADIX + digit_of(from[h * span + t], spec)];
    /* Digit-major: digit d of span h starts after every smaller digit, and after digit d of
       the spans before h. */
    uint sum = 0;
    int move = 1;
    for (uint d = 0; d < RANK_RADIX; ++d) {
        const uint begin = sum;
        if (run_begin)
            run_begin[d] = begin;
        for (uint h = 0; h < RANK_SPANS; ++h) {
            const uint c = counters[h * RANK_RADIX + d];
            counters[h * RANK_RADIX + d] = sum;
            sum += c;
        }
        if (count > 0 && sum - begin == count)
            move = 0;  /* one digit holds every key: already in order */
    }
    *moved = move;
    if (!move)
        return 0;
    for (t = 0; last + t < count; ++t)
#pragma unroll
        for (uint h = 0; h < RANK_SPANS; ++h)
            place_key(from, to, IF_VALUES(from_values, to_values,) h * span + t, h, spec, counters);
    for (; t < span; ++t)
        for (uint h = 0; h + 1 < RANK_SPANS && h * span + t < count; ++h)
            place_key(from, to, IF_VALUES(from_values, to_values,) h * span + t, h, spec, counters);
    return 1;
}
#else
BARRIER_FUNCTION int rank_round(__local const radix_key *from, __local radix_key *to,
               IF_VALUES(__local const radix_value *from_values, __local radix_value *to_values,)
               uint count, uint chunk, digit_spec spec, __local uint *counters, __local uint *moved,
               __local uint *run_begin)
{
    const uint lid = get_local_id(0), first = min(lid * chunk, count), last = min(first + chunk, count);
    for (uint s = 0; s < RANK_RADIX; ++s)
        counters[PAD(s * WG + lid)] = 0;
    if (lid == 0)
        *moved = 1;
    for (uint t = first; t < last; ++t)
        ++counters[PAD(digit_of(from[PAD(t)], spec) * WG + lid)];
    group_exclusive_scan(counters, RANK_RADIX * WG);

    /* At most one digit holds every key: its owner is the only writer. */
    for (uint s = lid; s < RANK_RADIX; s += WG) {
        const uint begin = counters[PAD(s * WG)], end = s + 1 < RANK_RADIX ? counters[PAD((s + 1) * WG)] : count;
        if (count > 0 && end - begin == count)
            *moved = 0;
        if (run_begin)
            run_begin[PAD(s)] = begin;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* moved is final */
    const int move = *moved;
    if (move)
        for (uint t = first; t < last; ++t) {
            const radix_key key = from[PAD(t)];
            const uint slot = counters[PAD(digit_of(key, spec) * WG + lid)]++;
            to[PAD(slot)] = key;
            IF_VALUES(to_values[PAD(slot)] = from_values[PAD(t)];)
        }
    barrier(CLK_LOCAL_MEM_FENCE);  /* `to` is complete, and everyone has read moved */
    return move;
}
#endif

#if WG == 1
/* One work-item: turns the digit counts slot[0 .. radix) of n keys into each digit's first
   slot (an exclusive prefix sum). Returns 1 when one digit holds every key, so that a pass
   by that digit would move nothing. */
int counts_to_slots(__local uint *slot, uint radix, uint n)
{
    uint sum = 0, trivial = 0;
    for (uint d = 0; d < radix; ++d) {
        const uint c = slot[d];
        trivial |= c == n;
        slot[d] = sum;
        sum += c;
    }
    return trivial;
}

/* Keys a one-work-item local sort orders by one digit and then by insertion, and the most
   keys a bucket may then hold: up to there, the RANK_RADIX counters of every LSD round cost
   more than the keys (measured on POCL: 1.3-2.9x faster from 64 to 256 32-bit keys and
   64 to 512 64-bit keys, 0.7x at 512 32-bit keys). */
#define FEW_KEYS (KEY_BITS * 8)
#define FEW_PER_BUCKET 16

/*
 * local_sort of n <= FEW_KEYS keys by one work-item: a stable scatter from keys_a to
 * keys_b by the RANK_BITS-wide digit that holds the highest bit in which the keys differ
 * (all bits above it are the same in every key), then each bucket in keys_b ordered by
 * insertion, stably. Returns 1 (the result is in keys_b), 0 when every key is equal in
 * the bits (nothing moved), or -1 when a bucket would hold more than FEW_PER_BUCKET keys
 * (nothing moved either: LSD rounds then).
 */
/* noinline: inlined into local_sort, Intel's CPU runtime (2026.2) compiles the pairs
   variants so that every value comes out 0, whether this path runs or not
   (tests/intel-cpu-repro.py). */
__attribute__((noinline)) int few_keys_sort(__local radix_key *keys_a, __local radix_key *keys_b,
                  IF_VALUES(__local radix_value *values_a, __local radix_value *values_b,)
                  uint n, uint begin_bit, uint end_bit, key_order order, __local uint *counters)
{
    radix_key any = 0, all = ~(radix_key)0;
    for (uint t = 0; t < n; ++t) {
        const radix_key image = masked_image(keys_a[t], begin_bit, end_bit, order);
        any |= image;
        all &= image;
    }
    const radix_key varying = any ^ all;
    if (!varying)
        return 0;
    const uint top = KEY_BITS - (uint)clz(varying);  /* bits [0, top) of the masked image vary */
    const uint shift = top > RANK_BITS ? top - RANK_BITS : 0;
    for (uint d = 0; d < RANK_RADIX; ++d)
        counters[d] = 0;
    for (uint t = 0; t < n; ++t)
        ++counters[(uint)(masked_image(keys_a[t], begin_bit, end_bit, order) >> shift) & (RANK_RADIX - 1)];
    uint sum = 0, most = 0;
    for (uint d = 0; d < RANK_RADIX; ++d) {
        const uint c = counters[d];
        most = max(most, c);
        counters[d] = sum;
        sum += c;
    }
    if (most > FEW_PER_BUCKET)
        return -1;
    for (uint t = 0; t < n; ++t) {
        const radix_key key = keys_a[t];
        const uint at = counters[(uint)(masked_image(key, begin_bit, end_bit, order) >> shift)
                                 & (RANK_RADIX - 1)]++;
        keys_b[at] = key;
        IF_VALUES(values_b[at] = values_a[t];)
    }
    /* counters[d] is now where bucket d ends: insertion within each bucket, from its start. */
    for (uint d = 0, begin = 0; d < RANK_RADIX; begin = counters[d++]) {
        for (uint t = begin + 1; t < counters[d]; ++t) {
            const radix_key key = keys_b[t];
            IF_VALUES(const radix_value value = values_b[t];)
            const radix_key image = masked_image(key, begin_bit, end_bit, order);
            uint u = t;
            for (; u > begin && masked_image(keys_b[u - 1], begin_bit, end_bit, order) > image; --u) {
                keys_b[u] = keys_b[u - 1];
                IF_VALUES(values_b[u] = values_b[u - 1];)
            }
            keys_b[u] = key;
            IF_VALUES(values_b[u] = value;)
        }
    }
    return 1;
}
#endif

/*
 * Sorts the n keys (and values) at PAD(i) of keys_a stably by bits [begin_bit, end_bit)
 * of their image, in RANK_BITS-wide rounds between the two buffers (a round in which
 * every key has the same digit moves nothing). Returns 1 when the result lies in the `b`
 * buffers. Every work-item must call it after the keys are loaded and a barrier; it ends
 * with a barrier. counters holds RANK_COUNTERS words.
 */
BARRIER_FUNCTION int local_sort(__local radix_key *keys_a, __local radix_key *keys_b,
               IF_VALUES(__local radix_value *values_a, __local radix_value *values_b,)
               uint n, uint begin_bit, uint end_bit, key_order order, __local uint *counters,
               __local uint *moved)
{
    __local radix_key *sorted = keys_a, *spare = keys_b;
    IF_VALUES(__local radix_value *sorted_values = values_a, *spare_values = values_b;)
    int in_b = 0;
#if WG == 1
    if (n <= FEW_KEYS) {
        const int few = few_keys_sort(keys_a, keys_b, IF_VALUES(values_a, values_b,) n, begin_bit, end_bit, order,
                                      counters);
        if (few >= 0)
            return few;
    }
    /* One work-item: one read counts the digits of every round, then each round that
       moves keys puts each straight to its slot, in order. */
    const uint rounds = end_bit > begin_bit ? (end_bit - begin_bit + RANK_BITS - 1) / RANK_BITS : 0;
    for (uint i = 0; i < RANK_COUNTERS; ++i)
        counters[i] = 0;
    for (uint t = 0; t < n; ++t) {
        const radix_key image = masked_image(keys_a[t], begin_bit, end_bit, order);
#pragma unroll
        for (uint r = 0; r < RANK_ROWS; ++r)  /* every row: a loop the compiler unrolls */
            ++counters[r * RANK_RADIX + ((uint)(image >> (r * RANK_BITS)) & (RANK_RADIX - 1))];
    }
    for (uint r = 0; r < rounds; ++r) {
        __local uint *slot = counters + r * RANK_RADIX;
        if (counts_to_slots(slot, RANK_RADIX, n))
            continue;
        const uint shift = begin_bit + r * RANK_BITS;
        const digit_spec sub = { order, shift, (1u << min((uint)RANK_BITS, end_bit - shift)) - 1 };
        for (uint t = 0; t < n; ++t) {
            const radix_key key = sorted[t];
            const uint at = slot[digit_of(key, sub)]++;
            spare[at] = key;
            IF_VALUES(spare_values[at] = sorted_values[t];)
        }
#else
    const uint chunk = (n + WG - 1) / WG;
    for (uint shift = begin_bit; shift < end_bit; shift += RANK_BITS) {
        const digit_spec sub = { order, shift, (1u << min((uint)RANK_BITS, end_bit - shift)) - 1 };
        if (!rank_round(sorted, spare, IF_VALUES(sorted_values, spare_values,) n, chunk, sub, counters, moved, 0))
            continue;
#endif
        __local radix_key *keys = sorted;
        sorted = spare;
        spare = keys;
        IF_VALUES(__local radix_value *values = sorted_values; sorted_values = spare_values; spare_values = values;)
        in_b = !in_b;
    }
    return in_b;
}

/*
 * Ranks the valid keys of a tile (at PAD(i) in tile_a) stably by the digit spec, between
 * the two buffers (in one round, or as a local sort of the digit's bits in RANK_BITS-wide
 * rounds), and fills run_begin with where each digit's run starts in the result (digit d
 * at PAD(d)). Returns 1 when the result lies in the `b` buffers, 0 in the `a` ones. Every
 * work-item must call it after the tile is loaded and a barrier; it ends with a barrier.
 */
BARRIER_FUNCTION int rank_tile(__local radix_key *tile_a, __local radix_key *tile_b,
              IF_VALUES(__local radix_value *values_a, __local radix_value *values_b,)
              uint valid, digit_spec spec, __local uint *counters, __local uint *moved, __local uint *run_begin)
{
#if RANK_ROUNDS == 1
    /* One round also says where each digit's run starts (and is written without the loop,
       which POCL compiles 8 % slower for 64-bit keys). */
    return rank_round(tile_a, tile_b, IF_VALUES(values_a, values_b,) valid, (valid + WG - 1) / WG, spec, counters,
                      moved, run_begin);
#else
    const int in_b = local_sort(tile_a, tile_b, IF_VALUES(values_a, values_b,) valid, spec.shift,
                                spec.shift + popcount(spec.mask), spec.order, counters, moved);
    __local const radix_key *sorted = in_b ? tile_b : tile_a;
    /* Where each digit's run starts in the sorted tile: count the digits, then scan. */
    const uint lid = get_local_id(0);
    for (uint d = lid; d < RADIX; d += WG)
        run_begin[PAD(d)] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);  /* the counters are zero */
    for (uint t = lid; t < valid; t += WG)
        atomic_inc(&run_begin[PAD(digit_of(sorted[PAD(t)], spec))]);
    /* group_exclusive_scan starts with a barrier, but POCL 3.1 runs the scan on partial
       counts without this one (oclgrind finds no race; the sort loses keys). */
    barrier(CLK_LOCAL_MEM_FENCE);
    group_exclusive_scan(run_begin, RADIX);
    return in_b;
#endif
}
