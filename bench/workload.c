/* The benchmark's inputs, its qsort baseline, and the verification of every result. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *dist_name(bench_dist d)
{
    static const char *const names[DIST_COUNT] = {
        "random", "sorted", "reverse", "equal", "few", "lowentropy", "range16", "unit", "normal", "zipf",
        "entropy0.811", "entropy0.544", "entropy0.337", "entropy0.201", "exponential", "rootdup", "twodup",
        "almostsorted" };
    return d < DIST_COUNT ? names[d] : "?";
}

const char *type_name(clradix_key_type type)
{
    static const char *const names[TYPE_COUNT] = { "u32", "i32", "f32", "u64", "i64", "f64",
                                                   "u8", "i8", "u16", "i16", "f16", "bf16",
                                                   "f32-numpy", "f64-numpy", "f16-numpy", "bf16-numpy" };
    return (unsigned)type < TYPE_COUNT ? names[type] : "?";
}

unsigned type_bytes(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_U8: case CLRADIX_I8: return 1;
    case CLRADIX_U16: case CLRADIX_I16: case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F16_NUMPY:
    case CLRADIX_BF16_NUMPY: return 2;
    case CLRADIX_U64: case CLRADIX_I64: case CLRADIX_F64: case CLRADIX_F64_NUMPY: return 8;
    default: return 4;
    }
}

uint64_t bench_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t bench_random(uint64_t *state)
{
    return bench_mix(*state += 0x9E3779B97F4A7C15ull);
}

static uint64_t get_key(const void *keys, unsigned bytes, size_t i)
{
    switch (bytes) {
    case 1: return ((const uint8_t *)keys)[i];
    case 2: return ((const uint16_t *)keys)[i];
    case 4: return ((const uint32_t *)keys)[i];
    default: return ((const uint64_t *)keys)[i];
    }
}

static void put_key(void *keys, unsigned bytes, size_t i, uint64_t v)
{
    switch (bytes) {
    case 1: ((uint8_t *)keys)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)keys)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)keys)[i] = (uint32_t)v; break;
    default: ((uint64_t *)keys)[i] = v; break;
    }
}

/* A float in numpy's order as read before totalOrder: every NaN as the NaN one above +inf
   (whose bits are inf), -0.0 as +0.0. */
static uint64_t numpy_key(uint64_t key, uint64_t inf, uint64_t sign)
{
    const uint64_t magnitude = key & ~sign;
    return magnitude > inf ? inf + 1 : magnitude ? key : 0;
}

uint64_t order_image(clradix_key_type type, uint64_t key)
{
    switch (type) {
    case CLRADIX_I32: return key ^ 0x80000000u;
    case CLRADIX_I64: return key ^ 0x8000000000000000ull;
    case CLRADIX_F32: return key & 0x80000000u ? ~key & 0xFFFFFFFFu : key | 0x80000000u;
    case CLRADIX_F64: return key >> 63 ? ~key : key | 0x8000000000000000ull;
    case CLRADIX_I8: return key ^ 0x80u;
    case CLRADIX_I16: return key ^ 0x8000u;
    case CLRADIX_F16: case CLRADIX_BF16: return key & 0x8000u ? ~key & 0xFFFFu : key | 0x8000u;
    case CLRADIX_F32_NUMPY: return order_image(CLRADIX_F32, numpy_key(key, 0x7F800000u, 0x80000000u));
    case CLRADIX_F64_NUMPY: return order_image(CLRADIX_F64, numpy_key(key, 0x7FF0000000000000ull, 1ull << 63));
    case CLRADIX_F16_NUMPY: return order_image(CLRADIX_F16, numpy_key(key, 0x7C00u, 0x8000u));
    case CLRADIX_BF16_NUMPY: return order_image(CLRADIX_BF16, numpy_key(key, 0x7F80u, 0x8000u));
    default: return key;
    }
}

/* A random key of type; floats are redrawn until finite, so random inputs hold no NaN or infinity. */
static uint64_t random_key(clradix_key_type type, uint64_t *state)
{
    const unsigned bits = 8 * type_bytes(type);
    for (;;) {
        const uint64_t r = bench_random(state), key = bits == 64 ? r : r & ((1ull << bits) - 1);
        if (finite_key(type, key))
            return key;
    }
}

typedef struct record {
    uint64_t image;
    size_t index;
} record;

static int compare_records(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->image != y->image)
        return x->image < y->image ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

void make_keys(clradix_key_type type, bench_dist d, size_t n, uint64_t seed, void *keys)
{
    const unsigned bytes = type_bytes(type);
    uint64_t state = seed, pool[16];
    for (int i = 0; i < 16; ++i)
        pool[i] = random_key(type, &state);
    for (size_t i = 0; i < n; ++i) {
        uint64_t v;
        switch (d) {
        case DIST_EQUAL: v = pool[0]; break;
        case DIST_FEW: v = pool[bench_random(&state) & 15]; break;
        case DIST_LOWENTROPY: v = bench_random(&state) & bench_random(&state) & bench_random(&state); break;
        case DIST_RANGE16: v = bench_random(&state) & 0xFFFF; break;
        case DIST_UNIT: case DIST_NORMAL: case DIST_ZIPF: v = real_key(type, d, &state); break;
        case DIST_ENTROPY811: case DIST_ENTROPY544: case DIST_ENTROPY337: case DIST_ENTROPY201:
            v = random_key(type, &state);
            for (int more = 0; more <= (int)(d - DIST_ENTROPY811); ++more)
                v &= random_key(type, &state);  /* finite floats stay finite: no all-ones exponent */
            break;
        case DIST_EXPONENTIAL: case DIST_ROOTDUP: case DIST_TWODUP: case DIST_ALMOSTSORTED:
            v = suite_key(type, d, i, n, &state);
            break;
        default: v = random_key(type, &state); break;
        }
        put_key(keys, bytes, i, v);
    }
    for (size_t s = 0; d == DIST_ALMOSTSORTED && n > 0 && s < (size_t)sqrt((double)n); ++s) {
        const size_t a = bench_random(&state) % n, b = bench_random(&state) % n;
        const uint64_t t = get_key(keys, bytes, a);
        put_key(keys, bytes, a, get_key(keys, bytes, b));
        put_key(keys, bytes, b, t);
    }
    if (d == DIST_SORTED || d == DIST_REVERSE) {
        qsort_sort(type, keys, NULL, 0, n);
        for (size_t i = 0; d == DIST_REVERSE && i < n / 2; ++i) {
            const uint64_t t = get_key(keys, bytes, i);
            put_key(keys, bytes, i, get_key(keys, bytes, n - 1 - i));
            put_key(keys, bytes, n - 1 - i, t);
        }
    }
}

void make_values(size_t value_size, size_t n, void *values)
{
    for (size_t i = 0; i < n; ++i) {
        unsigned char *v = (unsigned char *)values + i * value_size;
        if (value_size == 4) {
            const uint32_t x = (uint32_t)i;
            memcpy(v, &x, 4);
        } else {
            const uint64_t x = i;
            memcpy(v, &x, 8);
            if (value_size == 16) {
                uint64_t state = i, h = bench_random(&state);
                memcpy(v + 8, &h, 8);
            }
        }
    }
}

static size_t value_index(const void *values, size_t value_size, size_t i)
{
    const unsigned char *v = (const unsigned char *)values + i * value_size;
    if (value_size == 4) {
        uint32_t x;
        memcpy(&x, v, 4);
        return x;
    }
    uint64_t x;
    memcpy(&x, v, 8);
    return (size_t)x;
}

/* Comparators for sorting keys alone, as a user of qsort would write them (floats by bit
   pattern in totalOrder, since < is wrong for NaN). */
#define INTEGER_COMPARE(name, T)                              \
    static int name(const void *a, const void *b)             \
    {                                                         \
        const T x = *(const T *)a, y = *(const T *)b;         \
        return (x > y) - (x < y);                             \
    }
#define FLOAT_COMPARE(name, T, type)                                                              \
    static int name(const void *a, const void *b)                                                 \
    {                                                                                             \
        const uint64_t x = order_image(type, *(const T *)a), y = order_image(type, *(const T *)b); \
        return (x > y) - (x < y);                                                                 \
    }
INTEGER_COMPARE(compare_u8, uint8_t)
INTEGER_COMPARE(compare_i8, int8_t)
INTEGER_COMPARE(compare_u16, uint16_t)
INTEGER_COMPARE(compare_i16, int16_t)
INTEGER_COMPARE(compare_u32, uint32_t)
INTEGER_COMPARE(compare_i32, int32_t)
INTEGER_COMPARE(compare_u64, uint64_t)
INTEGER_COMPARE(compare_i64, int64_t)
FLOAT_COMPARE(compare_f16, uint16_t, CLRADIX_F16)
FLOAT_COMPARE(compare_bf16, uint16_t, CLRADIX_BF16)
FLOAT_COMPARE(compare_f32, uint32_t, CLRADIX_F32)
FLOAT_COMPARE(compare_f64, uint64_t, CLRADIX_F64)
FLOAT_COMPARE(compare_f32_numpy, uint32_t, CLRADIX_F32_NUMPY)
FLOAT_COMPARE(compare_f64_numpy, uint64_t, CLRADIX_F64_NUMPY)
FLOAT_COMPARE(compare_f16_numpy, uint16_t, CLRADIX_F16_NUMPY)
FLOAT_COMPARE(compare_bf16_numpy, uint16_t, CLRADIX_BF16_NUMPY)

void qsort_sort(clradix_key_type type, void *keys, void *values, size_t value_size, size_t n)
{
    const unsigned bytes = type_bytes(type);
    if (!values) {  /* keys alone: equal keys are indistinguishable, so qsort's instability is invisible */
        static int (*const compare[TYPE_COUNT])(const void *, const void *) = {
            compare_u32, compare_i32, compare_f32, compare_u64, compare_i64, compare_f64,
            compare_u8, compare_i8, compare_u16, compare_i16, compare_f16, compare_bf16,
            compare_f32_numpy, compare_f64_numpy, compare_f16_numpy, compare_bf16_numpy,
        };
        qsort(keys, n, bytes, compare[type]);
        return;
    }
    /* Pairs: records of (key order, index), so that equal keys keep their order. */
    record *records = malloc((n ? n : 1) * sizeof *records);
    for (size_t i = 0; i < n; ++i)
        records[i] = (record){ order_image(type, get_key(keys, bytes, i)), i };
    qsort(records, n, sizeof *records, compare_records);
    /* Apply the permutation through copies of the inputs. */
    void *old_keys = malloc((n ? n : 1) * bytes), *old_values = malloc((n ? n : 1) * value_size);
    memcpy(old_keys, keys, n * bytes);
    memcpy(old_values, values, n * value_size);
    for (size_t i = 0; i < n; ++i) {
        put_key(keys, bytes, i, get_key(old_keys, bytes, records[i].index));
        memcpy((char *)values + i * value_size, (char *)old_values + records[i].index * value_size, value_size);
    }
    free(old_keys);
    free(old_values);
    free(records);
}

input_digest digest_keys(clradix_key_type type, const void *keys, size_t n)
{
    const unsigned bytes = type_bytes(type);
    input_digest d = { 0, 0 };
    for (size_t i = 0; i < n; ++i) {
        uint64_t k = get_key(keys, bytes, i), state = k;
        d.sum += k;
        d.mix += bench_random(&state);  /* order-independent, so equal for every permutation */
    }
    return d;
}

/* verify_sort of the n elements from first on, whose values hold their index in the
   whole input (from first up). */
static int verify_range(clradix_key_type type, const void *in_keys, input_digest digest, const void *out_keys,
                        const void *out_values, size_t value_size, size_t first, size_t n, char *why, size_t why_size)
{
    const unsigned bytes = type_bytes(type);
    in_keys = (const unsigned char *)in_keys + first * bytes;
    out_keys = (const unsigned char *)out_keys + first * bytes;
    for (size_t i = 1; i < n; ++i)
        if (order_image(type, get_key(out_keys, bytes, i - 1)) > order_image(type, get_key(out_keys, bytes, i))) {
            snprintf(why, why_size, "keys %zu and %zu out of order", first + i - 1, first + i);
            return 1;
        }
    const input_digest out = digest_keys(type, out_keys, n);
    if (out.sum != digest.sum || out.mix != digest.mix) {
        snprintf(why, why_size, "the keys are not a permutation of the input");
        return 1;
    }
    if (!out_values)
        return 0;
    unsigned char *seen = calloc(n ? n : 1, 1);
    int bad = 0;
    for (size_t i = 0, o = first; i < n && !bad; ++i, ++o) {
        const size_t from = value_index(out_values, value_size, o) - first;  /* wraps past n when below first */
        if (from >= n || seen[from] || get_key(in_keys, bytes, from) != get_key(out_keys, bytes, i)) {
            snprintf(why, why_size, "value %zu does not belong to its key", o);
            bad = 1;
        } else if (i > 0 && get_key(out_keys, bytes, i) == get_key(out_keys, bytes, i - 1)
                   && from + first < value_index(out_values, value_size, o - 1)) {
            snprintf(why, why_size, "equal keys %zu and %zu lost their input order", o - 1, o);
            bad = 1;
        } else if (value_size == 16) {
            uint64_t state = from + first, h = bench_random(&state), got;
            memcpy(&got, (const unsigned char *)out_values + o * 16 + 8, 8);
            if (got != h) {
                snprintf(why, why_size, "bytes 8..15 of value %zu were not moved with it", o);
                bad = 1;
            }
        }
        seen[from < n ? from : 0] = 1;
    }
    free(seen);
    return bad;
}

int verify_sort(clradix_key_type type, const void *in_keys, input_digest digest, const void *out_keys,
                const void *out_values, size_t value_size, size_t n, char *why, size_t why_size)
{
    return verify_range(type, in_keys, digest, out_keys, out_values, value_size, 0, n, why, why_size);
}

int verify_segments(clradix_key_type type, const void *in_keys, const void *out_keys, const void *out_values,
                    size_t value_size, const uint32_t *offsets, size_t num_segments, char *why, size_t why_size)
{
    const unsigned bytes = type_bytes(type);
    for (size_t s = 0; s < num_segments; ++s) {
        const size_t first = offsets[s], n = offsets[s + 1] - first;
        const input_digest digest = digest_keys(type, (const unsigned char *)in_keys + first * bytes, n);
        if (verify_range(type, in_keys, digest, out_keys, out_values, value_size, first, n, why, why_size))
            return 1;
    }
    return 0;
}

unsigned executed_passes(clradix_key_type type, const void *keys, size_t n, unsigned radix_bits)
{
    const unsigned bytes = type_bytes(type), width = 8 * bytes;
    uint64_t differs = 0;  /* bits of the order image in which some key differs from the first */
    const uint64_t first = n ? order_image(type, get_key(keys, bytes, 0)) : 0;
    for (size_t i = 1; i < n; ++i)
        differs |= order_image(type, get_key(keys, bytes, i)) ^ first;
    unsigned passes = 0;
    for (unsigned shift = 0; shift < width; shift += radix_bits)
        passes += (differs >> shift) & ((1ull << radix_bits) - 1) ? 1 : 0;
    return passes;
}

double bytes_per_key(clradix_key_type type, size_t value_size, size_t n, unsigned passes, const clradix_tuning *t)
{
    const double k = type_bytes(type), v = (double)value_size;
    if (n <= t->small_n)  /* one kernel: read everything once, write it once */
        return 2 * (k + v);
    /* One read counts every pass's digits; each pass that moves data reads keys and values
       and writes them (and, without FUSED, every one but the first reads the keys before
       for its counts); an odd number of such passes ends with a copy back. */
    const double histograms = t->fused == 2 || passes == 0 ? 0 : (passes - 1) * k;
    return k + passes * 2 * (k + v) + histograms + (passes % 2 ? 2 * (k + v) : 0);
}

uint32_t *make_segment_offsets(size_t n, size_t length, uint64_t seed, size_t *num_segments)
{
    size_t count = 0, capacity = length ? n / length + 2 : 64;
    uint32_t *offsets = malloc(capacity * sizeof *offsets);
    offsets[0] = 0;
    for (size_t at = 0; at < n; ++count) {
        size_t len = length;
        if (!len) {  /* as many segments in [2^e, 2^(e+1)) for every e < 20, uniform within */
            const unsigned e = (unsigned)(bench_random(&seed) % 20);
            len = ((size_t)1 << e) + (size_t)(bench_random(&seed) % ((uint64_t)1 << e));
        }
        at = len < n - at ? at + len : n;
        if (count + 2 > capacity)
            offsets = realloc(offsets, (capacity *= 2) * sizeof *offsets);
        offsets[count + 1] = (uint32_t)at;
    }
    *num_segments = count;
    return offsets;
}

int verify_topk(clradix_key_type type, const void *keys, size_t rows, size_t row_length, size_t k,
                const void *out_keys, const uint32_t *out_indices, char *why, size_t why_size)
{
    const unsigned bytes = type_bytes(type);
    for (size_t row = 0; row < rows && k; ++row) {
        const size_t base = row * row_length;
        uint64_t last_image = 0;
        uint32_t last_index = 0;
        for (size_t i = 0; i < k; ++i) {
            const uint32_t index = out_indices[row * k + i];
            const uint64_t key = get_key(out_keys, bytes, row * k + i);
            if (index >= row_length || get_key(keys, bytes, base + index) != key) {
                snprintf(why, why_size, "row %zu: output %zu is not the key at its index", row, i);
                return 1;
            }
            const uint64_t image = order_image(type, key);
            if (i && (image < last_image || (image == last_image && index <= last_index))) {
                snprintf(why, why_size, "row %zu: output %zu is out of stable order", row, i);
                return 1;
            }
            last_image = image;
            last_index = index;
        }
        /* The outputs are k distinct keys in stable order; they are the first k exactly when k
           keys of the row come no later than the last of them. */
        size_t before = 0;
        for (size_t j = 0; j < row_length; ++j) {
            const uint64_t image = order_image(type, get_key(keys, bytes, base + j));
            before += image < last_image || (image == last_image && j <= last_index);
        }
        if (before != k) {
            snprintf(why, why_size, "row %zu: not the first %zu keys of the stable order", row, k);
            return 1;
        }
    }
    return 0;
}
