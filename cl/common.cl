/*
 * Definitions shared by the radix-sort kernels. The host prepends this file to the kernel
 * files and sets the shape of the code with -D build options:
 *   KEY_BITS     8, 16, 32 or 64: width of a key, which kernels read and write as such
 *   VALUE_SIZE   0 (keys only), 4, 8 or 16: bytes of the value moved with each key
 *   RADIX_BITS   1..8: bits sorted per pass (RADIX digits)
 *   WG           work-items per group of the sort kernels, a power of two
 *   KPT          keys per work-item in a tile (a tile is WG * KPT keys)
 *   RANK_BITS    1..RADIX_BITS: bits of the digit ranked per round inside a tile by one
 *                work-item (several rank a whole digit in one round)
 *   COUNTER_DIGITS  with several work-items: digits whose counters a tile's ranking holds
 *                at once, a power of two up to RADIX (rank_digits)
 *   UNROLL       defined on GPUs: loops over a work-item's keys and counters unrolled
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
 *   NUMPY_ORDER, RECORD_IMAGE  how a key's image is read (image_of): floats in numpy's
 *                order; records read as keys (1: integer fields, 2: float ones too)
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
/* Words of the counters of rank_round and local_sort (one work-item): a row per
   RANK_BITS-wide round of the key (local_sort counts them all at once), and at least a row
   per span of rank_round. */
#if WG == 1
#define RANK_ROWS ((KEY_BITS + RANK_BITS - 1) / RANK_BITS)
#define RANK_SPANS 2
#define RANK_COUNTERS (RANK_RADIX * (RANK_ROWS > RANK_SPANS ? RANK_ROWS : RANK_SPANS))
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
#elif RECORD_IMAGE == 1
    /* A record read as one key, its fields all integers (key_order.h: key_transform's
       record): rotated by nan_above's low 6 bits, its composite key on top. */
    return rotate(key, order.nan_above & (KEY_BITS - 1)) ^ order.pos_xor;
#elif RECORD_IMAGE == 2
    /* The same with float fields of one width (nan_above's bits 8-13: that width less one),
       whose sign bits neg_xor holds: a negative one flips the field's other bits too, by a
       subtraction that stays inside each field (branch-free). Each costs the sort (2^24
       8-byte records on POCL): the float fields about 25 %, a mask of the composite's bits
       another 10 %, so integers have a variant of their own and the bit range, not a
       mask, leaves out what is not key. */
    const radix_key composite = rotate(key, order.nan_above & (KEY_BITS - 1)), signs = composite & order.neg_xor;
    return composite ^ order.pos_xor ^ (radix_key)(signs - (signs >> ((uint)(order.nan_above >> 8) & 63)));
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


#if FUSED && WG == 1
/*
 * Counts the next pass's digits of the count keys of `run`, written to out[slot .. slot +
 * count), by the block of the next pass that each slot falls into. (No division: the few
 * blocks are stepped through, and oclgrind cannot follow the freeze instruction that
 * compilers emit for a division by a variable.)
 */
void count_next(__local const radix_key *run, uint count, uint slot, uint block_len, digit_spec next,
                __local uint *next_counts)
{
    uint block = 0, block_begin = 0;
    while (slot - block_begin >= block_len) {
        ++block;
        block_begin += block_len;
    }
    for (uint t = 0; t < count; ++t, ++slot) {
        if (slot - block_begin == block_len) {
            ++block;
            block_begin += block_len;
        }
        ++next_counts[digit_of(run[t], next) * MAX_GROUPS + block];
    }
}

#elif FUSED
/* Counts the next pass's digit of a key written to out[slot], as count_next does, where
   several work-items count at once. */
void count_next_key(radix_key key, uint slot, uint block_len, digit_spec next, __local uint *next_counts)
{
    uint block = 0;
    for (uint block_begin = 0; slot - block_begin >= block_len; block_begin += block_len)
        ++block;
    atomic_inc(&next_counts[digit_of(key, next) * MAX_GROUPS + block]);
}
#endif

#if WG == 1
/* ---------------------------------------------------------------------------------
 * One work-item per group (CPUs): tiles ranked in local memory, which is cached memory
 * there, by plain loops
 * ------------------------------------------------------------------------------ */

/*
 * One stable ranking round over the count keys of a tile: moves keys (and values) from
 * `from` to `to`, ordered by digit_of(key, spec), keeping the order of keys with equal
 * digits (see the spans above). spec.mask must be below RANK_RADIX. Returns 0, moving
 * nothing, when every key has the same digit: `from` is then already in order. run_begin,
 * unless 0, receives where each digit's run starts in the result.
 */
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

#if WG == 1
/*
 * One-work-item passes scatter each key to slot[digit]++. Keys whose digits step through
 * the radix in lock step (consecutive numbers: IDs, counters, presorted keys below n) make
 * every digit's slot advance together; with equal counts the slots then lie a power of two
 * apart and fall in one cache set, so that every write misses (passes 1.5x slower on
 * POCL). digits_in_lockstep tells from the first keys (most digits a constant step from the
 * one before); scatter_by_lines then gathers each digit's keys in a line-sized buffer of its
 * own and writes them out a line at a time. Random keys keep the plain loop, to which the
 * buffers would add a quarter.
 */
#if KEY_BITS == 64 || VALUE_SIZE == 16
#define LINE_KEYS 8u  /* a 64-byte line of 64-bit keys (private buffers of at most 48 KiB) */
#else
#define LINE_KEYS 16u
#endif
#define LOCKSTEP_SAMPLE 1024u
#define DEFINE_LINE_SCATTER(SPACE, lockstep, plain, by_lines)                                                       \
int lockstep(SPACE const radix_key *src, uint n, digit_spec spec)                                                   \
{                                                                                                                   \
    const uint sample = min(n, LOCKSTEP_SAMPLE);                                                                    \
    if (sample <= 2)                                                                                                \
        return 0;                                                                                                   \
    uint stepped = 0, a = digit_of(src[0], spec), b = digit_of(src[1], spec);  /* each key's digit read once */     \
    for (uint t = 2; t < sample; ++t) {                                                                             \
        const uint c = digit_of(src[t], spec);                                                                      \
        stepped += c != b && ((c - b) & spec.mask) == ((b - a) & spec.mask);                                        \
        a = b;                                                                                                      \
        b = c;                                                                                                      \
    }                                                                                                               \
    return 2 * stepped >= sample;                                                                                   \
}                                                                                                                   \
/* src's n keys (and values) to dst at slot[digit]++, in order; slots past limit unwritten. Both                    \
   out of line: with the buffered loop beside it in one function, POCL compiled the plain one a                     \
   tenth slower. */                                                                                                 \
__attribute__((noinline)) void plain(SPACE const radix_key *src, SPACE radix_key *dst,                              \
                                     IF_VALUES(SPACE const radix_value *src_values, SPACE radix_value *dst_values,) \
                                     uint n, uint limit, digit_spec spec, __local uint *slot)                       \
{                                                                                                                   \
    for (uint t = 0; t < n; ++t) {                                                                                  \
        const radix_key key = src[t];                                                                               \
        const uint at = slot[digit_of(key, spec)]++;                                                                \
        if (at < limit) {                                                                                           \
            dst[at] = key;                                                                                          \
            IF_VALUES(dst_values[at] = src_values[t];)                                                              \
        }                                                                                                           \
    }                                                                                                               \
}                                                                                                                   \
__attribute__((noinline)) void by_lines(SPACE const radix_key *src, SPACE radix_key *dst,                           \
              IF_VALUES(SPACE const radix_value *src_values, SPACE radix_value *dst_values,)                        \
              uint n, uint limit, digit_spec spec, __local uint *slot)                                              \
{                                                                                                                   \
    radix_key line[RADIX * LINE_KEYS];                                                                              \
    IF_VALUES(radix_value line_values[RADIX * LINE_KEYS];)                                                          \
    uint first[RADIX];  /* each digit's first slot: its first line may begin before it */                           \
    for (uint d = 0; d <= spec.mask; ++d)                                                                           \
        first[d] = slot[d];                                                                                         \
    for (uint t = 0; t < n; ++t) {                                                                                  \
        const radix_key key = src[t];                                                                               \
        const uint d = digit_of(key, spec), at = slot[d]++, w = at % LINE_KEYS;                                     \
        line[d * LINE_KEYS + w] = key;                                                                              \
        IF_VALUES(line_values[d * LINE_KEYS + w] = src_values[t];)                                                  \
        if (w == LINE_KEYS - 1)  /* the line is full: out with it */                                                \
            for (uint u = max(at - w, first[d]), end = min(at + 1, limit); u < end; ++u) {                          \
                dst[u] = line[d * LINE_KEYS + u % LINE_KEYS];                                                       \
                IF_VALUES(dst_values[u] = line_values[d * LINE_KEYS + u % LINE_KEYS];)                              \
            }                                                                                                       \
    }                                                                                                               \
    for (uint d = 0; d <= spec.mask; ++d)  /* each digit's last line, in part */                                    \
        for (uint u = max(slot[d] - slot[d] % LINE_KEYS, first[d]), end = min(slot[d], limit); u < end; ++u) {      \
            dst[u] = line[d * LINE_KEYS + u % LINE_KEYS];                                                           \
            IF_VALUES(dst_values[u] = line_values[d * LINE_KEYS + u % LINE_KEYS];)                                  \
        }                                                                                                           \
}
DEFINE_LINE_SCATTER(__local, digits_in_lockstep_local, scatter_plain_local, scatter_by_lines_local)
DEFINE_LINE_SCATTER(__global, digits_in_lockstep_global, scatter_plain_global, scatter_by_lines_global)
#endif

/*
 * Sorts the n keys (and values) of keys_a stably by bits [begin_bit, end_bit) of their
 * image, into keys_b or back: the few-keys sort where it applies, else RANK_BITS-wide
 * rounds between the two buffers, the digits of every round counted in one read (a round
 * in which every key has the same digit moves nothing). Returns 1 when the result lies in
 * the `b` buffers. counters holds RANK_COUNTERS words.
 */
int local_sort(__local radix_key *keys_a, __local radix_key *keys_b,
               IF_VALUES(__local radix_value *values_a, __local radix_value *values_b,)
               uint n, uint begin_bit, uint end_bit, key_order order, __local uint *counters)
{
    if (n <= FEW_KEYS) {
        const int few = few_keys_sort(keys_a, keys_b, IF_VALUES(values_a, values_b,) n, begin_bit, end_bit, order,
                                      counters);
        if (few >= 0)
            return few;
    }
    __local radix_key *sorted = keys_a, *spare = keys_b;
    IF_VALUES(__local radix_value *sorted_values = values_a, *spare_values = values_b;)
    int in_b = 0;
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
        if (digits_in_lockstep_local(sorted, n, sub))
            scatter_by_lines_local(sorted, spare, IF_VALUES(sorted_values, spare_values,) n, n, sub, slot);
        else
            scatter_plain_local(sorted, spare, IF_VALUES(sorted_values, spare_values,) n, n, sub, slot);
        __local radix_key *keys = sorted;
        sorted = spare;
        spare = keys;
        IF_VALUES(__local radix_value *values = sorted_values; sorted_values = spare_values; spare_values = values;)
        in_b = !in_b;
    }
    return in_b;
}

/*
 * Ranks the valid keys of a tile (in tile_a) stably by the digit spec, between the two
 * buffers (in one round, or as a local sort of the digit's bits), and fills run_begin with
 * where each digit's run starts in the result. Returns 1 when the result lies in the `b`
 * buffers, 0 in the `a` ones.
 */
int rank_tile(__local radix_key *tile_a, __local radix_key *tile_b,
              IF_VALUES(__local radix_value *values_a, __local radix_value *values_b,)
              uint valid, digit_spec spec, __local uint *counters, __local uint *moved, __local uint *run_begin)
{
#if RANK_ROUNDS == 1
    /* One round also says where each digit's run starts (and is written without the loop,
       which POCL compiles 8 % slower for 64-bit keys). */
    return rank_round(tile_a, tile_b, IF_VALUES(values_a, values_b,) valid, 0, spec, counters, moved, run_begin);
#else
    const int in_b = local_sort(tile_a, tile_b, IF_VALUES(values_a, values_b,) valid, spec.shift,
                                spec.shift + popcount(spec.mask), spec.order, counters);
    __local const radix_key *sorted = in_b ? tile_b : tile_a;
    for (uint d = 0; d < RADIX; ++d)
        run_begin[d] = 0;
    for (uint t = 0; t < valid; ++t)  /* where each digit's run starts: count, then scan */
        ++run_begin[digit_of(sorted[t], spec)];
    counts_to_slots(run_begin, RADIX, valid);
    return in_b;
#endif
}

/* What moving a tile by digit needs in local memory: the tile in two buffers, the
   counters, where each digit's run starts in the ordered tile, and the next output slot of
   each digit. */
typedef struct tile_scratch {
    radix_key keys[2][TILE];
    IF_VALUES(radix_value values[2][TILE];)
    uint counters[RANK_COUNTERS], run_begin[RADIX], digit_next[RADIX], moved;
} tile_scratch;

/*
 * Moves the valid keys (and values) of src to dst by the digit spec: ordered in local
 * memory, then written run by run from s->digit_next[digit] on, which moves past the run.
 * Nothing is written at or past limit (only jobs that overlap, from offsets that decrease,
 * can count other keys than they move: their result is unspecified, but never outside the
 * job). With FUSED and next_counts, also counts the next pass's digits (count_next).
 */
void scatter_tile(__global const radix_key *src, IF_VALUES(__global const radix_value *src_values,) uint valid,
                  digit_spec spec, __local tile_scratch *s, uint limit,
                  __global radix_key *dst IF_VALUES(, __global radix_value *dst_values),
                  __local uint *next_counts, digit_spec next, uint block_len)
{
    for (uint t = 0; t < valid; ++t) {
        s->keys[0][t] = src[t];
        IF_VALUES(s->values[0][t] = src_values[t];)
    }
    const int in_b = rank_tile(s->keys[0], s->keys[1], IF_VALUES(s->values[0], s->values[1],) valid, spec,
                               s->counters, &s->moved, s->run_begin);
    __local const radix_key *sorted = s->keys[in_b];
    IF_VALUES(__local const radix_value *sorted_values = s->values[in_b];)
    for (uint d = 0; d < RADIX; ++d) {  /* each digit's run as a block */
        const uint begin = s->run_begin[d], length = (d + 1 < RADIX ? s->run_begin[d + 1] : valid) - begin;
        const uint out = s->digit_next[d], written = out < limit ? min(length, limit - out) : 0;
        for (uint t = 0; t < written; ++t) {
            dst[out + t] = sorted[begin + t];
            IF_VALUES(dst_values[out + t] = sorted_values[begin + t];)
        }
#if FUSED
        if (next_counts)
            count_next(sorted + begin, length, out, block_len, next, next_counts);
#endif
        s->digit_next[d] = out + length;
    }
}

#else
/* ---------------------------------------------------------------------------------
 * Several work-items per group (GPUs): a tile's digit ranked in one round, keys held in
 * private memory
 * ------------------------------------------------------------------------------ */

#if !defined(COUNTER_DIGITS) || COUNTER_DIGITS < 2 || COUNTER_DIGITS > RANK_RADIX \
    || (COUNTER_DIGITS & (COUNTER_DIGITS - 1))
#error "COUNTER_DIGITS must be a power of two from 2 to RANK_RADIX"
#endif
#if TILE > 65535
#error "a tile of several work-items holds fewer than 65536 keys: ranks are counted in 16 bits"
#endif

/* Loops over a work-item's keys and counters: unrolled on GPUs (UNROLL), so that they stay
   in registers; elsewhere as loops (CPU compilers gain nothing from it, and POCL compiles
   the unrolled kernels of a work-group of 128 for minutes). */
#ifdef UNROLL
#define UNROLL_KEYS _Pragma("unroll")
#else
#define UNROLL_KEYS
#endif

/*
 * The counters of rank_digits: per work-item a 16-bit count of each of COUNTER_DIGITS
 * digits, two to a word (digit d in lane d % LANES, the low half for d < LANES), laid out
 * lane-major (word lane * WG + work-item), so that one scan of the words in that order
 * is digit-major. Raking pushes the prefixes through a segment of LANES words as vectors
 * of 4 where LANES allows; each segment starts RAKE_VECTOR words past the end of the one
 * before, so that it is aligned for them and work-items raking side by side fall in
 * different banks of GPU local memory.
 */
#define LANES (COUNTER_DIGITS / 2)
#define CHUNKS (RANK_RADIX / COUNTER_DIGITS)
#if LANES % 4 == 0
#define RAKE_VECTOR 4
#else
#define RAKE_VECTOR 1
#endif
#define COUNTER_AT(i) ((i) + (i) / LANES * RAKE_VECTOR)
#define COUNTER_WORDS COUNTER_AT(LANES * WG)

/* group_prefix: runs of PREFIX_SPAN values summed by a work-item each, then their sums. */
#define PREFIX_SPAN (WG >= 128 ? 16 : WG >= 8 ? 8 : WG)
#define PREFIX_WORDS (WG + WG / PREFIX_SPAN + 1)

/* What a tile needs in local memory: the counters, and then in the same words the tile
   in order (keys, then values); sums for group_prefix, where each digit's run starts in
   the ordered tile (run_begin[RADIX]: the tile's keys), the output slot of each digit's
   first key in the tile, the next output slot of each digit, and the bits that vary
   (sort_tile). */
typedef struct tile_scratch {
    union {
        uint4 aligned;  /* raking reads the counters as uint4 */
        uint counters[COUNTER_WORDS];
        radix_key keys[TILE];
        IF_VALUES(radix_value values[TILE];)
    } shared;
    uint sums[PREFIX_WORDS], run_begin[RADIX + 1], out_base[RADIX], digit_next[RADIX], bits[4];
} tile_scratch;

/*
 * Exclusive prefix sum over the work-group of one value per work-item, in work-item order,
 * and (*total) the sum of all; in three barriers, not a tree's 2 log2(WG). Two calls in a
 * row need no barrier between them.
 */
BARRIER_FUNCTION uint group_prefix(uint value, __local uint *sums, uint *total)
{
    const uint lid = get_local_id(0), runs = WG / PREFIX_SPAN;
    sums[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);  /* every value is in */
    if (lid < runs) {
        uint sum = 0;
        for (uint i = lid * PREFIX_SPAN; i < (lid + 1) * PREFIX_SPAN; ++i) {
            const uint v = sums[i];
            sums[i] = sum;
            sum += v;
        }
        sums[WG + lid] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* each run is scanned */
    if (lid == 0) {
        uint sum = 0;
        for (uint r = WG; r < WG + runs; ++r) {
            const uint v = sums[r];
            sums[r] = sum;
            sum += v;
        }
        sums[WG + runs] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the runs' prefixes are in */
    *total = sums[WG + runs];
    return sums[lid] + sums[WG + lid / PREFIX_SPAN];
}

/*
 * Ranks the keys of a tile stably by digit, in one round: work-item i holds the digits of
 * the tile's places [i * KPT, i * KPT + KPT) in digit[] (below RANK_RADIX; RANK_RADIX for a
 * place past the tile's
 * keys, which takes no part) and gets in place[k] where its key k goes in the tile ordered
 * by digit (a place past the keys keeps its own, which no key takes: they take the places
 * before it); s->run_begin[d] gets where digit d's run starts there, run_begin[RANK_RADIX] the
 * tile's keys (complete after the caller's next barrier).
 *
 * Each work-item counts its keys in counters of its own (CUB's BlockRadixRank): a key's
 * count before it is its rank among the work-item's keys of that digit. One exclusive
 * scan of all counters in digit-major order, by raking (each work-item sums a segment of
 * LANES words, group_prefix scans the sums, each work-item pushes its prefix through its
 * segment), gives every (digit, work-item) the place of its first key, and every digit
 * its run's start: no second count. 16-bit counts two to a word are scanned as the word
 * (no count reaches 2^16, so neither half carries into the other); the high half then
 * adds the low half's total. Digits past COUNTER_DIGITS are counted in further chunks,
 * each after the keys of the chunks before. Starts with the counters free (a barrier
 * before it).
 */
BARRIER_FUNCTION void rank_digits(const uint digit[KPT], uint place[KPT], __local tile_scratch *s)
{
    const uint lid = get_local_id(0);
    __local uint *counters = s->shared.counters;
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k)
        place[k] = lid * KPT + k;
    uint before = 0;  /* keys in the chunks before */
    for (uint chunk = 0; chunk < CHUNKS; ++chunk) {
        UNROLL_KEYS
        for (uint l = 0; l < LANES; ++l)
            counters[COUNTER_AT(l * WG + lid)] = 0;  /* its own column: no one else's */
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k) {
            const uint d = digit[k] - chunk * COUNTER_DIGITS;  /* outside the chunk: at least COUNTER_DIGITS */
            if (d < COUNTER_DIGITS) {
                const uint at = COUNTER_AT((d % LANES) * WG + lid), high = d / LANES * 16, word = counters[at];
                place[k] = (word >> high) & 0xFFFF;
                counters[at] = word + (1u << high);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);  /* every key is counted */

        __local uint *words = counters + COUNTER_AT(lid * LANES);
        uint sum = 0, total;
        UNROLL_KEYS
        for (uint l = 0; l < LANES; ++l)  /* word by word: oclgrind 21.10 --uninitialized crashes on the
                                             sum of a vector's components (tests/oclgrind-vector-sum.cl) */
            sum += words[l];
        uint prefix = group_prefix(sum, s->sums, &total);
#if RAKE_VECTOR == 4
        __local uint4 *segment = (__local uint4 *)words;
        UNROLL_KEYS
        for (uint q = 0; q < LANES / 4; ++q) {
            const uint4 count = segment[q];
            const uint x = count.x, xy = x + count.y, xyz = xy + count.z;
            segment[q] = (uint4)(prefix) + (uint4)(0, x, xy, xyz);  /* one store: element-wise, four */
            prefix += xyz + count.w;
        }
#else
        for (uint l = 0; l < LANES; ++l) {
            const uint count = words[l];
            words[l] = prefix;
            prefix += count;
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);  /* every counter holds its prefix */

        const uint low_total = total & 0xFFFF;
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k) {
            const uint d = digit[k] - chunk * COUNTER_DIGITS;
            if (d < COUNTER_DIGITS) {
                const uint high = d / LANES * 16;
                place[k] += before + ((counters[COUNTER_AT((d % LANES) * WG + lid)] >> high) & 0xFFFF)
                          + (high ? low_total : 0);
            }
        }
        for (uint d = lid; d < COUNTER_DIGITS; d += WG) {  /* where work-item 0's keys of d go */
            const uint high = d / LANES * 16;
            const uint first_key = (counters[COUNTER_AT(d % LANES * WG)] >> high) & 0xFFFF;
            s->run_begin[chunk * COUNTER_DIGITS + d] = before + first_key + (high ? low_total : 0);
        }
        before += low_total + (total >> 16);
        if (CHUNKS > 1)
            barrier(CLK_LOCAL_MEM_FENCE);  /* work-item 0's counters are read before they are cleared */
    }
    if (lid == 0)
        s->run_begin[RANK_RADIX] = before;
}

/* Loads a tile of the n <= TILE keys (and values) of src as sort_tile holds it: key[k] (and
   value[k]) from place lid * KPT + k, zero past n. */
void load_tile(__global const radix_key *src, IF_VALUES(__global const radix_value *src_values,) uint n,
               radix_key key[KPT] IF_VALUES(, radix_value value[KPT]))
{
    const uint first = get_local_id(0) * KPT;
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k) {
        key[k] = first + k < n ? src[first + k] : 0;
        IF_VALUES(value[k] = first + k < n ? src_values[first + k] : 0;)
    }
}

/* The bits [begin_bit, end_bit) of the key images that differ between some of the keys
   key[k] of places [0, n) of a tile held as scatter_tile holds it (a barrier before it,
   and after it before s->bits is written again). */
BARRIER_FUNCTION radix_key varying_bits(const radix_key key[KPT], uint n, uint begin_bit, uint end_bit,
                                        key_order order, __local tile_scratch *s)
{
    const uint lid = get_local_id(0), first = lid * KPT;
    radix_key any = 0, all = ~(radix_key)0;
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k)
        if (first + k < n) {
            const radix_key image = masked_image(key[k], begin_bit, end_bit, order);
            any |= image;
            all &= image;
        }
    if (lid == 0) {
        s->bits[0] = s->bits[1] = 0;
        s->bits[2] = s->bits[3] = ~0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the words are set */
    /* 32 bits at a time: OpenCL 1.2 has no 64-bit local atomics */
    atomic_or(&s->bits[0], (uint)any);
    atomic_and(&s->bits[2], (uint)all);
#if KEY_BITS == 64
    atomic_or(&s->bits[1], (uint)(any >> 32));
    atomic_and(&s->bits[3], (uint)(all >> 32));
#endif
    barrier(CLK_LOCAL_MEM_FENCE);  /* every work-item's keys are in */
    radix_key varying = s->bits[0] ^ s->bits[2];
#if KEY_BITS == 64
    varying |= (radix_key)(s->bits[1] ^ s->bits[3]) << 32;
#endif
    return varying;
}

/*
 * Sorts the n <= TILE keys (and values) of a tile held as scatter_tile holds them (key[k],
 * value[k] at place lid * KPT + k; places past n hold nothing) stably by bits
 * [begin_bit, end_bit) of their image, in digit passes of RANK_BITS through local memory;
 * a digit in whose bits no key differs from the others is passed over. The result is held
 * the same way. Starts after a barrier (s free), ends with one.
 */
BARRIER_FUNCTION void sort_tile(radix_key key[KPT], IF_VALUES(radix_value value[KPT],) uint n, uint begin_bit,
                                uint end_bit, key_order order, __local tile_scratch *s)
{
    const uint lid = get_local_id(0), first = lid * KPT;
    const radix_key varying = varying_bits(key, n, begin_bit, end_bit, order, s);
    uint digit[KPT], place[KPT];
    for (uint shift = begin_bit; shift < end_bit; shift += RANK_BITS) {
        const uint bits = min((uint)RANK_BITS, end_bit - shift);
        if (!((uint)(varying >> (shift - begin_bit)) & ((1u << bits) - 1u)))
            continue;  /* the same for every work-item */
        const digit_spec spec = { order, shift, (1u << bits) - 1 };
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k)
            digit[k] = first + k < n ? digit_of(key[k], spec) : RANK_RADIX;
        barrier(CLK_LOCAL_MEM_FENCE);  /* the pass before has read its tile back */
        rank_digits(digit, place, s);
        barrier(CLK_LOCAL_MEM_FENCE);  /* the counters are read */
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k)  /* every place: see scatter_tile */
            s->shared.keys[place[k]] = key[k];
        barrier(CLK_LOCAL_MEM_FENCE);  /* the tile is in order */
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k)
            key[k] = s->shared.keys[first + k];
#if VALUE_SIZE
        barrier(CLK_LOCAL_MEM_FENCE);  /* the keys are read back */
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k)
            s->shared.values[place[k]] = value[k];
        barrier(CLK_LOCAL_MEM_FENCE);  /* the values are in order */
        UNROLL_KEYS
        for (uint k = 0; k < KPT; ++k)
            value[k] = s->shared.values[first + k];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* s is free again */
}

/*
 * Moves the valid keys (and values) of src to dst by the digit spec: each work-item loads
 * the keys of its places, the tile is ordered by digit, and each key at place t of the
 * ordered tile goes to s->digit_next[digit] + t - (where its digit's run starts); digit_next
 * moves past the run. In one round (RANK_ROUNDS 1): rank_digits places the keys, they go
 * through local memory to their places, and each work-item writes keys of the ordered tile
 * at a stride of WG, so that neighbouring work-items write neighbouring slots of a digit's
 * run. In rounds of RANK_BITS (sort_tile), each work-item writes the KPT keys it holds
 * then, and the runs are found where the digit changes. Nothing is written at or past
 * limit (see the one-work-item scatter_tile). With FUSED and next_counts, also counts the
 * next pass's digits (count_next). Ends without a barrier.
 */
BARRIER_FUNCTION
void scatter_tile(__global const radix_key *src, IF_VALUES(__global const radix_value *src_values,) uint valid,
                  digit_spec spec, __local tile_scratch *s, uint limit,
                  __global radix_key *dst IF_VALUES(, __global radix_value *dst_values),
                  __local uint *next_counts, digit_spec next, uint block_len)
{
    const uint lid = get_local_id(0), first = lid * KPT;
    radix_key key[KPT];
    IF_VALUES(radix_value value[KPT];)
#if RANK_ROUNDS > 1
    load_tile(src, IF_VALUES(src_values,) valid, key IF_VALUES(, value));
    barrier(CLK_LOCAL_MEM_FENCE);  /* the tile before is written out: the local words are free */
    sort_tile(key, IF_VALUES(value,) valid, spec.shift, spec.shift + popcount(spec.mask), spec.order, s);
    /* Each digit's run, from where the digit changes (sums: each work-item's last digit);
       out_base holds where a run ends until the slots are known. */
    uint digit[KPT];
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k)
        digit[k] = first + k < valid ? digit_of(key[k], spec) : RADIX;
    for (uint d = lid; d < RADIX; d += WG)
        s->run_begin[d] = s->out_base[d] = 0;
    s->sums[lid] = digit[KPT - 1];
    barrier(CLK_LOCAL_MEM_FENCE);  /* the runs are clear, the last digits in */
    uint previous = lid ? s->sums[lid - 1] : RADIX;
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k) {
        if (digit[k] < RADIX && digit[k] != previous) {  /* a run begins, the one before ends */
            s->run_begin[digit[k]] = first + k;
            if (previous < RADIX)
                s->out_base[previous] = first + k;
        }
        if (first + k + 1 == valid)
            s->out_base[digit[k]] = valid;
        previous = digit[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* every run is found */
    for (uint d = lid; d < RADIX; d += WG) {
        const uint out = s->digit_next[d] - s->run_begin[d];
        s->digit_next[d] += s->out_base[d] - s->run_begin[d];
        s->out_base[d] = out;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* out_base is set */
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k) {
        const uint slot = first + k < valid ? s->out_base[digit[k]] + first + k : limit;
        if (slot < limit) {
            dst[slot] = key[k];
            IF_VALUES(dst_values[slot] = value[k];)
        }
#if FUSED
        if (next_counts && first + k < valid)
            count_next_key(key[k], slot, block_len, next, next_counts);
#endif
    }
#else
    uint digit[KPT], place[KPT];
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k) {
        digit[k] = RADIX;
        key[k] = 0;  /* (a place past the tile's keys moves too: see below) */
        IF_VALUES(value[k] = 0;)
        if (first + k < valid) {
            key[k] = src[first + k];
            IF_VALUES(value[k] = src_values[first + k];)
            digit[k] = digit_of(key[k], spec);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the tile before is written out: the local words are free */
    rank_digits(digit, place, s);
    barrier(CLK_LOCAL_MEM_FENCE);  /* run_begin is complete, the counters are read */
    for (uint d = lid; d < RADIX; d += WG) {
        const uint out = s->digit_next[d] - s->run_begin[d];
        s->out_base[d] = out;
        s->digit_next[d] = out + s->run_begin[d + 1];
    }
    /* Every place moves, past the tile's keys too (to its own place): no store under a
       condition, where POCL 3.1 moved the first of the unrolled values' stores above the
       barriers before it, onto a place whose key was still to be read
       (tests/pocl-unroll-repro.c). */
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k)
        s->shared.keys[place[k]] = key[k];
    barrier(CLK_LOCAL_MEM_FENCE);  /* the tile is in order, out_base is set */
    uint slot[KPT];
    UNROLL_KEYS
    for (uint i = 0; i < KPT; ++i) {
        const uint t = i * WG + lid;
        slot[i] = limit;
        if (t < valid) {
            const radix_key k = s->shared.keys[t];
            slot[i] = s->out_base[digit_of(k, spec)] + t;
            if (slot[i] < limit)
                dst[slot[i]] = k;
#if FUSED
            if (next_counts)
                count_next_key(k, slot[i], block_len, next, next_counts);
#endif
        }
    }
#if VALUE_SIZE
    barrier(CLK_LOCAL_MEM_FENCE);  /* every key is read: the values take their words */
    UNROLL_KEYS
    for (uint k = 0; k < KPT; ++k)
        s->shared.values[place[k]] = value[k];
    barrier(CLK_LOCAL_MEM_FENCE);  /* the values are in order */
    UNROLL_KEYS
    for (uint i = 0; i < KPT; ++i)
        if (slot[i] < limit)
            dst_values[slot[i]] = s->shared.values[i * WG + lid];
#endif
#endif
}
#endif

/*
 * Moves count keys (and values) from src to dst by the digit spec, a tile at a time
 * (scatter_tile), each digit's keys from s->digit_next[digit] on, never at or past limit.
 */
BARRIER_FUNCTION
void scatter_range(__global const radix_key *src, IF_VALUES(__global const radix_value *src_values,) uint count,
                   digit_spec spec, __local tile_scratch *s, uint limit,
                   __global radix_key *dst IF_VALUES(, __global radix_value *dst_values),
                   __local uint *next_counts, digit_spec next, uint block_len)
{
    for (uint offset = 0; offset < count; offset += TILE)
        scatter_tile(src + offset, IF_VALUES(src_values + offset,) min((uint)TILE, count - offset), spec, s, limit,
                     dst IF_VALUES(, dst_values), next_counts, next, block_len);
}
