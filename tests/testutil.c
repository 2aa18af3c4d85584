#include "testutil.h"
#ifdef TESTUTIL_TESTING
#include "testing.h"
#endif

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *dist_name(dist d)
{
    static const char *const names[DIST_ALL] = { "random", "sorted", "reverse", "equal", "two", "sixteen",
                                                 "low-entropy", "top-digit", "bottom-digit", "unit", "normal",
                                                 "unit-nan", "all-but-few", "sampled-low", "sequential",
                                                 "ends", "mislead", "mixed" };
    return d < DIST_ALL ? names[d] : "?";
}

unsigned key_bytes_of(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_U8: case CLRADIX_I8: return 1;
    case CLRADIX_U16: case CLRADIX_I16: case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F16_NUMPY:
    case CLRADIX_BF16_NUMPY: case CLRADIX_F16_NAN_LAST: case CLRADIX_BF16_NAN_LAST: return 2;
    case CLRADIX_U64: case CLRADIX_I64: case CLRADIX_F64: case CLRADIX_F64_NUMPY: case CLRADIX_F64_NAN_LAST:
        return 8;
    default: return 4;
    }
}

uint64_t rng_next(uint64_t *state)  /* splitmix64 */
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t get_key(const void *keys, unsigned bytes, size_t i)
{
    switch (bytes) {
    case 1: return ((const uint8_t *)keys)[i];
    case 2: return ((const uint16_t *)keys)[i];
    case 4: return ((const uint32_t *)keys)[i];
    default: return ((const uint64_t *)keys)[i];
    }
}

void put_key(void *keys, unsigned bytes, size_t i, uint64_t v)
{
    switch (bytes) {
    case 1: ((uint8_t *)keys)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)keys)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)keys)[i] = (uint32_t)v; break;
    default: ((uint64_t *)keys)[i] = v; break;
    }
}

static int is_float_type(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_F32: case CLRADIX_F64: case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F32_NUMPY:
    case CLRADIX_F64_NUMPY: case CLRADIX_F16_NUMPY: case CLRADIX_BF16_NUMPY: case CLRADIX_F32_NAN_LAST:
    case CLRADIX_F64_NAN_LAST: case CLRADIX_F16_NAN_LAST: case CLRADIX_BF16_NAN_LAST: return 1;
    default: return 0;
    }
}

/* v (finite, of a magnitude below 65504) as a key of float type `type`, rounded toward zero. */
static uint64_t float_key_of(clradix_key_type type, double v)
{
    const float f = (float)v;
    uint32_t f_bits;
    uint64_t d_bits;
    memcpy(&f_bits, &f, sizeof f_bits);
    memcpy(&d_bits, &v, sizeof d_bits);
    switch (key_bytes_of(type)) {
    case 8: return d_bits;
    case 4: return f_bits;
    default:
        if (type == CLRADIX_BF16 || type == CLRADIX_BF16_NUMPY || type == CLRADIX_BF16_NAN_LAST)
            return f_bits >> 16;
        {  /* IEEE half */
            const uint64_t sign = v < 0 || (v == 0 && signbit(v)) ? 0x8000u : 0;
            const double a = fabs(v);
            if (a < 0x1p-14)
                return sign | (uint64_t)(a * 0x1p24);
            int e;
            const double m = frexp(a, &e);
            return sign | (uint64_t)(e + 14) << 10 | (uint64_t)((2.0 * m - 1.0) * 1024.0);
        }
    }
}

/* A key of the real-data distributions (DIST_UNIT, DIST_NORMAL, DIST_UNIT_NAN) from r. */
static uint64_t real_key_of(clradix_key_type type, dist d, uint64_t r, uint64_t *state)
{
    const unsigned bits = 8 * key_bytes_of(type);
    const double u = ldexp((double)(r >> 11), -53);
    if (d == DIST_UNIT_NAN && (r & 7) == 0) {  /* the special ones, by the low bits */
        const uint64_t sign = 1ull << (bits - 1), all = bits == 64 ? ~0ull : (1ull << bits) - 1;
        const uint64_t special[4] = { all, all >> 1, sign, 0 };  /* -NaN (all ones), +NaN, -0.0, +0.0 */
        return is_float_type(type) ? special[(r >> 3) & 3] : r & ((1u << 20) - 1);
    }
    if (d == DIST_NORMAL) {
        const double z = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * ldexp((double)(rng_next(state) >> 11), -53));
        if (is_float_type(type))
            return float_key_of(type, z);
        const int is_signed = type == CLRADIX_I8 || type == CLRADIX_I16 || type == CLRADIX_I32 || type == CLRADIX_I64;
        const double spread = ldexp(z, (int)bits / 2 - 2);  /* within the range: no clamping needed */
        return is_signed ? (uint64_t)(int64_t)spread : (uint64_t)(ldexp(1.0, (int)bits - 1) + spread);
    }
    return is_float_type(type) ? float_key_of(type, u) : r & ((1u << 20) - 1);
}

/* keys (n of type) rearranged so that the positions topk_sample reads (j * n / 4096, as
   cl/topk.cl) hold the smallest keys in order, the others the rest in input order. */
static void *sampled_low(clradix_key_type type, void *keys, size_t n)
{
    enum { SAMPLES = 4096 };
    const unsigned bytes = key_bytes_of(type);
    const size_t samples = n < SAMPLES ? n : SAMPLES;
    size_t *perm = oracle_order(type, keys, n, NULL), *rank = malloc(n * sizeof *rank);
    unsigned char *sampled = calloc(n ? n : 1, 1);
    void *out = malloc(n ? n * bytes : 1);
    for (size_t r = 0; r < n; ++r)
        rank[perm[r]] = r;
    for (size_t j = 0; j < samples; ++j) {
        sampled[j * n / samples] = 1;
        put_key(out, bytes, j * n / samples, get_key(keys, bytes, perm[j]));
    }
    size_t at = 0;
    for (size_t i = 0; i < n; ++i)
        if (rank[i] >= samples) {
            while (sampled[at])
                ++at;
            put_key(out, bytes, at++, get_key(keys, bytes, i));
        }
    free(perm);
    free(rank);
    free(sampled);
    free(keys);
    return out;
}

/* keys (n of type) with two in five the smallest of them and two in five the largest. */
static void *at_the_ends(clradix_key_type type, void *keys, size_t n)
{
    const unsigned bytes = key_bytes_of(type);
    if (!n)
        return keys;
    size_t *perm = oracle_order(type, keys, n, NULL);
    const uint64_t smallest = get_key(keys, bytes, perm[0]), largest = get_key(keys, bytes, perm[n - 1]);
    for (size_t i = 0; i < n; ++i)
        if (i % 5 < 4)
            put_key(keys, bytes, i, i % 5 < 2 ? smallest : largest);
    free(perm);
    return keys;
}

/* Which positions of a job of n keys seg_sample reads (cl/segments.cl: 4096 keys at the
   CPU row's RADIX of 256, picked by its fixed scramble): a flag per position. */
static unsigned char *sampled_by_engine(size_t n)
{
    unsigned char *sampled = calloc(n ? n : 1, 1);
    for (uint32_t t = 0; t < 4096 && n; ++t) {
        uint32_t h = (t ^ 0x9E3779B9u) * 0x85EBCA6Bu;
        h ^= h >> 13;
        h *= 0xC2B2AE35u;
        h ^= h >> 16;
        sampled[((uint64_t)h * n) >> 32] = 1;
    }
    return sampled;
}

void *make_keys(clradix_key_type type, dist d, size_t n, uint64_t seed)
{
    const unsigned bytes = key_bytes_of(type), bits = bytes * 8;
    void *keys = calloc(n ? n : 1, bytes);
    uint64_t state = seed, pool[16];
    for (int i = 0; i < 16; ++i)
        pool[i] = rng_next(&state);
    const uint64_t fixed = rng_next(&state);
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = rng_next(&state), v;
        switch (d) {
        case DIST_EQUAL: v = pool[0]; break;
        case DIST_TWO: v = pool[r & 1]; break;
        case DIST_SIXTEEN: v = pool[r & 15]; break;
        case DIST_LOW_ENTROPY: v = r & rng_next(&state) & rng_next(&state); break;
        case DIST_TOP_DIGIT: v = (fixed & ~(0xFFull << (bits - 8))) | (r << (bits - 8)); break;
        case DIST_BOTTOM_DIGIT: v = (fixed & ~0xFFull) | (r & 0xFF); break;
        case DIST_UNIT: case DIST_NORMAL: case DIST_UNIT_NAN: v = real_key_of(type, d, r, &state); break;
        case DIST_ALL_BUT_FEW: v = r % 1000 ? pool[0] : r; break;
        case DIST_SEQUENTIAL: v = (fixed >> 8) + i * (1 + 2 * (fixed & 3)); break;
        case DIST_MIXED: v = (i >> 12) & 1 ? r : r & rng_next(&state) & rng_next(&state); break;
        default: v = r; break;
        }
        put_key(keys, bytes, i, v);
    }
    for (size_t s = 0; d == DIST_SEQUENTIAL && n && s * s < n / 16; ++s) {
        const size_t a = rng_next(&state) % n, b = rng_next(&state) % n;
        const uint64_t t = get_key(keys, bytes, a);
        put_key(keys, bytes, a, get_key(keys, bytes, b));
        put_key(keys, bytes, b, t);
    }
    if (d == DIST_SORTED || d == DIST_REVERSE) {
        size_t *perm = oracle_order(type, keys, n, NULL);
        void *sorted = malloc(n ? n * bytes : 1);
        for (size_t i = 0; i < n; ++i)
            put_key(sorted, bytes, d == DIST_SORTED ? i : n - 1 - i, get_key(keys, bytes, perm[i]));
        free(perm);
        free(keys);
        keys = sorted;
    }
    if (d == DIST_MISLEAD) {
        unsigned char *sampled = sampled_by_engine(n);
        const uint64_t top = 1ull << (bits - 1);
        for (size_t i = 0; i < n; ++i) {
            const uint64_t r = rng_next(&state);
            const uint64_t below = (top >> 15) - 1;  /* the bits under the top two bytes */
            put_key(keys, bytes, i, sampled[i] ? (r & rng_next(&state) & rng_next(&state)) & (top - 1)
                                               : top | (r & 3) << (bits - 16) | ((r >> 8) & below));
        }
        free(sampled);
    }
    if (d == DIST_ENDS)
        return at_the_ends(type, keys, n);
    return d == DIST_SAMPLED_LOW ? sampled_low(type, keys, n) : keys;
}

void *make_values(size_t value_size, size_t n)
{
    unsigned char *values = malloc(n ? n * value_size : 1);
    for (size_t i = 0; i < n; ++i)
        for (size_t b = 0; b < value_size; ++b)  /* byte b of value i: one byte of i, mixed with b */
            values[i * value_size + b] = (unsigned char)((i >> (8 * (b % 4))) ^ (b * 0x35));
    return values;
}

static uint64_t numpy_image(clradix_key_type total, uint64_t key, uint64_t exponent, uint64_t mantissa,
                            int nan_below);

/* The key's position in its type's order, as an unsigned number (written independently of
   the library's XOR masks); nan_below: the _NAN_LAST types' NaNs below -inf (descending). */
static uint64_t order_image(clradix_key_type type, uint64_t key, int nan_below)
{
    switch (type) {
    case CLRADIX_I32: return (uint64_t)((int64_t)(int32_t)(uint32_t)key + 2147483648ll);
    case CLRADIX_I64: return key + 0x8000000000000000ull;
    case CLRADIX_F32:  /* IEEE totalOrder: negatives by falling magnitude, then positives */
        return key & 0x80000000u ? 0x7FFFFFFFu - (key & 0x7FFFFFFFu) : 0x80000000u + key;
    case CLRADIX_F64:
        return key >> 63 ? 0x7FFFFFFFFFFFFFFFull - (key & 0x7FFFFFFFFFFFFFFFull) : 0x8000000000000000ull + key;
    case CLRADIX_I8: return (uint64_t)((int)(int8_t)(uint8_t)key + 128);
    case CLRADIX_I16: return (uint64_t)((int)(int16_t)(uint16_t)key + 32768);
    case CLRADIX_F16: case CLRADIX_BF16:  /* both 16-bit words with the sign on top */
        return key & 0x8000u ? 0x7FFFu - (key & 0x7FFFu) : 0x8000u + key;
    case CLRADIX_F32_NUMPY: return numpy_image(CLRADIX_F32, key, 0x7F800000u, 0x007FFFFFu, 0);
    case CLRADIX_F64_NUMPY: return numpy_image(CLRADIX_F64, key, 0x7FF0000000000000ull, 0x000FFFFFFFFFFFFFull, 0);
    case CLRADIX_F16_NUMPY: return numpy_image(CLRADIX_F16, key, 0x7C00u, 0x03FFu, 0);
    case CLRADIX_BF16_NUMPY: return numpy_image(CLRADIX_F16, key, 0x7F80u, 0x007Fu, 0);
    case CLRADIX_F32_NAN_LAST: return numpy_image(CLRADIX_F32, key, 0x7F800000u, 0x007FFFFFu, nan_below);
    case CLRADIX_F64_NAN_LAST:
        return numpy_image(CLRADIX_F64, key, 0x7FF0000000000000ull, 0x000FFFFFFFFFFFFFull, nan_below);
    case CLRADIX_F16_NAN_LAST: return numpy_image(CLRADIX_F16, key, 0x7C00u, 0x03FFu, nan_below);
    case CLRADIX_BF16_NAN_LAST: return numpy_image(CLRADIX_F16, key, 0x7F80u, 0x007Fu, nan_below);
    default: return key;
    }
}

/* numpy's order of a float of the total-order type `total` with that exponent and
   mantissa: every NaN is read as the NaN one above +inf (nan_below: the negative one below
   -inf), -0.0 as +0.0 (the library's documented image, so that bit ranges agree too). */
static uint64_t numpy_image(clradix_key_type total, uint64_t key, uint64_t exponent, uint64_t mantissa,
                            int nan_below)
{
    const uint64_t magnitude = key & (exponent | mantissa), sign = (exponent | mantissa) + 1;
    if ((magnitude & exponent) == exponent && (magnitude & mantissa))
        return order_image(total, (nan_below ? sign : 0) | (exponent + 1), 0);
    return order_image(total, magnitude ? key : 0, 0);
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
    return x->index < y->index ? -1 : x->index > y->index;
}

uint64_t oracle_image(clradix_key_type type, const void *keys, size_t i, const clradix_options *options)
{
    const unsigned bytes = key_bytes_of(type), width = bytes * 8;
    const unsigned begin = options ? options->begin_bit : 0;
    const unsigned end = options && options->end_bit ? options->end_bit : width;
    const uint64_t mask = end - begin == 64 ? ~0ull : ((1ull << (end - begin)) - 1);
    const int descending = options && options->descending;
    uint64_t image = begin == end ? 0 : (order_image(type, get_key(keys, bytes, i), descending) >> begin) & mask;
    return descending ? mask - image : image;
}

size_t *oracle_order(clradix_key_type type, const void *keys, size_t n, const clradix_options *options)
{
    record *records = malloc((n ? n : 1) * sizeof *records);
    for (size_t i = 0; i < n; ++i)
        records[i] = (record){ oracle_image(type, keys, i, options), i };
    qsort(records, n, sizeof *records, compare_records);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    for (size_t i = 0; i < n; ++i)
        perm[i] = records[i].index;
    free(records);
    return perm;
}

int check_sorted(clradix_key_type type, const void *in_keys, const void *out_keys, const void *in_values,
                 const void *out_values, size_t value_size, size_t n, const size_t *perm, char *msg, size_t msg_size)
{
    const unsigned bytes = key_bytes_of(type);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t want = get_key(in_keys, bytes, perm[i]), got = get_key(out_keys, bytes, i);
        if (want != got) {
            snprintf(msg, msg_size, "key %zu of %zu: got 0x%llx, want 0x%llx (input index %zu)", i, n,
                     (unsigned long long)got, (unsigned long long)want, perm[i]);
            return 1;
        }
        if (value_size
            && memcmp((const char *)out_values + i * value_size, (const char *)in_values + perm[i] * value_size,
                      value_size)) {
            snprintf(msg, msg_size, "value %zu of %zu differs from input value %zu (unstable or lost)", i, n,
                     perm[i]);
            return 1;
        }
    }
    return 0;
}

clradix_status test_device_open(test_device *t, const clradix_tuning *tuning)
{
    memset(t, 0, sizeof *t);
    clradix_status status = clradix_sorter_create_tuned(NULL, NULL, tuning, &t->sorter);
    if (status != CLRADIX_SUCCESS)
        return status;
    t->context = clradix_sorter_context(t->sorter);
    t->device = clradix_sorter_device(t->sorter);
    cl_int err;
    t->queue = clCreateCommandQueue(t->context, t->device, 0, &err);
    return err == CL_SUCCESS ? CLRADIX_SUCCESS : CLRADIX_ERROR_OPENCL;
}

void test_device_close(test_device *t)
{
    if (t->queue)
        clReleaseCommandQueue(t->queue);
    clradix_sorter_release(t->sorter);
    memset(t, 0, sizeof *t);
}

const char *sort_call_name(const sort_call *call, char *buf, size_t size)
{
    static const char *const kinds[] = { "keys", "pairs", "argsort" };
    snprintf(buf, size, "%s %s/%zu", call->api == API_HOST ? "host" : "device", kinds[call->kind], call->value_size);
    return buf;
}

cl_int (*release_buffer)(cl_mem) = clReleaseMemObject;

clradix_status run_sort(test_device *t, const sort_call *call, clradix_key_type type, void *keys, void *values,
                        size_t n, const clradix_options *options)
{
    const size_t vs = call->kind == SORT_KEYS ? 0 : call->value_size;
    if (call->api == API_HOST) {
        switch (call->kind) {
        case SORT_KEYS: return clradix_sort_keys_host(t->sorter, t->host_queue, type, keys, n, options);
        case SORT_PAIRS:
            return clradix_sort_pairs_host(t->sorter, t->host_queue, type, keys, values, vs, n, options);
        case SORT_ARGSORT:
            return clradix_argsort_host(t->sorter, t->host_queue, type, keys, values, vs, n, options);
        }
    }

    const size_t key_size = n * key_bytes_of(type), val_size = n * vs;
    cl_int err;
    cl_mem kb = clCreateBuffer(t->context, CL_MEM_READ_WRITE, key_size ? key_size : 1, NULL, &err);
    cl_mem vb = vs ? clCreateBuffer(t->context, CL_MEM_READ_WRITE, val_size ? val_size : 1, NULL, &err) : NULL;
    if (key_size)
        clEnqueueWriteBuffer(t->queue, kb, CL_TRUE, 0, key_size, keys, 0, NULL, NULL);
    if (val_size)
        clEnqueueWriteBuffer(t->queue, vb, CL_TRUE, 0, val_size, values, 0, NULL, NULL);
    cl_event done = NULL;
    clradix_status status = CLRADIX_ERROR_INVALID_ARGUMENT;
    switch (call->kind) {
    case SORT_KEYS: status = clradix_sort_keys(t->sorter, t->queue, type, kb, n, options, 0, NULL, &done); break;
    case SORT_PAIRS:
        status = clradix_sort_pairs(t->sorter, t->queue, type, kb, vb, vs, n, options, 0, NULL, &done);
        break;
    case SORT_ARGSORT:
        status = clradix_argsort(t->sorter, t->queue, type, kb, vb, vs, n, options, 0, NULL, &done);
        break;
    }
    if (status == CLRADIX_SUCCESS) {
        const cl_int waited = done ? clWaitForEvents(1, &done) : CL_INVALID_EVENT;
        cl_int state = CL_COMPLETE;
        if (done)
            clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
        if (waited != CL_SUCCESS) {  /* the test's own wait, not the call: say so in the log */
            fprintf(stderr, "run_sort: the sort's event: clWaitForEvents %d, execution status %d\n", waited, state);
            status = CLRADIX_ERROR_OPENCL;
        }
    }
    if (done)
        clReleaseEvent(done);
    /* Read back also after an error: what the call left in the buffers is part of its contract. */
    clFinish(t->queue);
    if (key_size)
        clEnqueueReadBuffer(t->queue, kb, CL_TRUE, 0, key_size, keys, 0, NULL, NULL);
    if (val_size)
        clEnqueueReadBuffer(t->queue, vb, CL_TRUE, 0, val_size, values, 0, NULL, NULL);
    release_buffer(kb);
    if (vb)
        release_buffer(vb);
    return status;
}

/* Argsort's result: indices equal to the oracle's permutation, keys unchanged. */
static int check_argsort(const void *in_keys, const void *out_keys, size_t key_size, const void *indices,
                         size_t index_size, size_t n, const size_t *perm, char *msg, size_t msg_size)
{
    if (memcmp(in_keys, out_keys, key_size)) {
        snprintf(msg, msg_size, "argsort changed the keys");
        return 1;
    }
    for (size_t i = 0; i < n; ++i) {
        const uint64_t got = index_size == 4 ? ((const uint32_t *)indices)[i] : ((const uint64_t *)indices)[i];
        if (got != perm[i]) {
            snprintf(msg, msg_size, "index %zu of %zu: got %llu, want %zu", i, n, (unsigned long long)got, perm[i]);
            return 1;
        }
    }
    return 0;
}

enum { GUARD = 64 };  /* bytes past each top-k output that must stay as they were */

int topk_case(test_device *t, clradix_key_type type, dist d, size_t rows, size_t length, size_t k, int host,
              size_t index_size, int no_keys, const clradix_options *options, uint64_t seed, char *msg,
              size_t msg_size)
{
    const unsigned kb = key_bytes_of(type);
    const size_t n = rows * length, outputs = rows * k;
    unsigned char *keys = make_keys(type, d, n, seed), *keys_after = malloc(n ? n * kb : 1);
    unsigned char *out_keys = malloc(outputs * kb + GUARD), *out_indices = malloc(outputs * 8 + GUARD);
    memcpy(keys_after, keys, n * kb);  /* the host forms' keys are these; the device forms' are read back */
    memset(out_keys, 0xA5, outputs * kb + GUARD);
    memset(out_indices, 0x5A, outputs * 8 + GUARD);
    const int want_keys = !no_keys, want_indices = index_size != 0;
    clradix_status status;
    if (host) {
        status = rows == 1 ? clradix_topk_host(t->sorter, t->host_queue, type, keys, n, k, want_keys ? out_keys : NULL,
                                               want_indices ? out_indices : NULL, index_size, options)
                           : clradix_topk_rows_host(t->sorter, t->host_queue, type, keys, rows, length, k,
                                                    want_keys ? out_keys : NULL, want_indices ? out_indices : NULL,
                                                    index_size, options);
    } else {  /* through buffers, the outputs' guard bytes included; read back after the event */
        cl_int err = CL_SUCCESS;
        cl_mem in = clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n ? n * kb : 1, keys, &err);
        cl_mem out_k = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, outputs * kb + GUARD,
                                      out_keys, &err);
        cl_mem out_i = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, outputs * 8 + GUARD,
                                      out_indices, &err);
        cl_event done = NULL;
        status = CLRADIX_ERROR_OPENCL;
        if (err == CL_SUCCESS)
            status = rows == 1 ? clradix_topk(t->sorter, t->queue, type, in, n, k, want_keys ? out_k : NULL,
                                              want_indices ? out_i : NULL, index_size, options, 0, NULL, &done)
                               : clradix_topk_rows(t->sorter, t->queue, type, in, rows, length, k,
                                                   want_keys ? out_k : NULL, want_indices ? out_i : NULL, index_size,
                                                   options, 0, NULL, &done);
        if (status == CLRADIX_SUCCESS
            && (!done
                || clEnqueueReadBuffer(t->queue, out_k, CL_TRUE, 0, outputs * kb + GUARD, out_keys, 1, &done, NULL)
                || clEnqueueReadBuffer(t->queue, out_i, CL_TRUE, 0, outputs * 8 + GUARD, out_indices, 1, &done,
                                       NULL)
                || (n && clEnqueueReadBuffer(t->queue, in, CL_TRUE, 0, n * kb, keys_after, 1, &done, NULL))))
            status = CLRADIX_ERROR_OPENCL;
        if (done)
            clReleaseEvent(done);
        clFinish(t->queue);
        cl_mem buffers[] = { in, out_k, out_i };
        for (int b = 0; b < 3; ++b)
            if (buffers[b])
                release_buffer(buffers[b]);
    }
    int failed = status != CLRADIX_SUCCESS;
    snprintf(msg, msg_size, "status %d", status);
    if (!failed && memcmp(keys, keys_after, n * kb)) {
        snprintf(msg, msg_size, "the keys changed");
        failed = 1;
    }
    for (size_t row = 0; row < rows && !failed; ++row) {
        const unsigned char *row_keys = keys + row * length * kb;
        size_t *perm = oracle_order(type, row_keys, length, options);
        for (size_t j = 0; j < k && !failed; ++j) {
            const size_t i = row * k + j;
            const uint64_t want = get_key(row_keys, kb, perm[j]);
            if (want_keys && get_key(out_keys, kb, i) != want) {
                snprintf(msg, msg_size, "row %zu key %zu of %zu: 0x%llx, want 0x%llx", row, j, k,
                         (unsigned long long)get_key(out_keys, kb, i), (unsigned long long)want);
                failed = 1;
            }
            const uint64_t index = index_size == 4 ? get_key(out_indices, 4, i) : get_key(out_indices, 8, i);
            if (want_indices && index != perm[j]) {
                snprintf(msg, msg_size, "row %zu index %zu of %zu: %llu, want %zu", row, j, k,
                         (unsigned long long)index, perm[j]);
                failed = 1;
            }
        }
        free(perm);
    }
    /* Past the outputs (and the unwanted ones entirely) nothing was written. */
    for (size_t b = want_keys ? outputs * kb : 0; b < outputs * kb + GUARD && !failed; ++b)
        if (out_keys[b] != 0xA5) {
            snprintf(msg, msg_size, "key output byte %zu written", b);
            failed = 1;
        }
    for (size_t b = want_indices ? outputs * index_size : 0; b < outputs * 8 + GUARD && !failed; ++b)
        if (out_indices[b] != 0x5A) {
            snprintf(msg, msg_size, "index output byte %zu written", b);
            failed = 1;
        }
    free(keys);
    free(keys_after);
    free(out_keys);
    free(out_indices);
    return failed;
}

int sort_case(test_device *t, const sort_call *call, clradix_key_type type, dist d, size_t n,
              const clradix_options *options, uint64_t seed, char *msg, size_t msg_size)
{
    const size_t key_size = n * key_bytes_of(type), vs = call->kind == SORT_KEYS ? 0 : call->value_size;
    void *in_keys = make_keys(type, d, n, seed), *keys = malloc(key_size ? key_size : 1);
    void *in_values = vs ? make_values(vs, n) : NULL;
    void *values = vs ? malloc(n ? n * vs : 1) : NULL;
    memcpy(keys, in_keys, key_size);
    if (vs)
        memcpy(values, in_values, n * vs);  /* argsort must overwrite these */

    int failed = 0;
    clradix_status status = run_sort(t, call, type, keys, values, n, options);
    if (status != CLRADIX_SUCCESS) {
        snprintf(msg, msg_size, "sort returned %s", clradix_status_string(status));
        failed = 1;
    } else {
        size_t *perm = oracle_order(type, in_keys, n, options);
        failed = call->kind == SORT_ARGSORT
            ? check_argsort(in_keys, keys, key_size, values, vs, n, perm, msg, msg_size)
            : check_sorted(type, in_keys, keys, in_values, values, vs, n, perm, msg, msg_size);
        free(perm);
    }
    free(in_keys);
    free(keys);
    free(in_values);
    free(values);
    return failed;
}

void make_broken_kernel_dir(char *dir)
{
    char path[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    DIR *sources = opendir(CLRADIX_SOURCE_CL_DIR);
    ck_assert_ptr_nonnull(sources);
    int copied = 0;
    for (struct dirent *e; (e = readdir(sources)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cl"))
            continue;
        snprintf(path, sizeof path, "%s/%s", CLRADIX_SOURCE_CL_DIR, e->d_name);
        FILE *in = fopen(path, "rb");
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *out = fopen(path, "wb");
        ck_assert(in && out);
        for (int ch; (ch = fgetc(in)) != EOF;)
            fputc(ch, out);
        if (!strcmp(e->d_name, "scatter.cl"))
            fputs("\nthis is not OpenCL C;\n", out);
        fclose(in);
        fclose(out);
        ++copied;
    }
    closedir(sources);
    ck_assert_int_ge(copied, 4);
}

void remove_folder(const char *dir)
{
    char path[512];
    DIR *made = opendir(dir);
    for (struct dirent *e; made && (e = readdir(made)) != NULL;) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.')
            remove(path);
    }
    if (made)
        closedir(made);
    remove(dir);
}

/* Whether there are at least min devices, found in a child process. */
static int devices_available(unsigned min)
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        cl_uint count = 0;
        _exit(clradix_device_list(0, NULL, &count) == CLRADIX_SUCCESS && count >= min ? 0 : 1);
    }
    int status = 0;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int test_full_scope(void)
{
    const char *repeat = getenv("CLRADIX_TEST_REPEAT");
    return !repeat || strcmp(repeat, "1") != 0;
}

int run_device_suite(Suite *suite, const char *name)
{
    return run_suite_with_devices(suite, name, 1);
}

int run_suite_with_devices(Suite *suite, const char *name, unsigned min_devices)
{
    if (!devices_available(min_devices)) {
        fprintf(stderr, "%s: fewer than %u OpenCL devices: skipped\n", name, min_devices);
        return TEST_SKIP;
    }
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

test_device dev;

void open_dev(const clradix_tuning *tuning)
{
    clradix_status status = test_device_open(&dev, tuning);
    ck_assert_msg(status == CLRADIX_SUCCESS, "sorter: %s\n%s", clradix_status_string(status),
                  clradix_build_log(NULL));
}

void open_dev_tuned(const clradix_tuning *tuning, const char *environment)
{
    if (environment)
        setenv("CLRADIX_TUNING", environment, 1);
    open_dev(tuning);
    unsetenv("CLRADIX_TUNING");
}

void close_dev(void)
{
    test_device_close(&dev);
#ifdef TESTUTIL_TESTING
    /* Without Check's fork (CK_FORK=no, as ctest runs most suites) what a failed test set
       for its calls would stay for the next test. (Limits and traits, which a test sets
       for the sorters it opens, perhaps several in turn, it resets itself.) */
    clradix_testing_fail_at(0);
    clradix_testing_count_only(NULL);
    clradix_testing_size_max(0);
    clradix_testing_max_keys_in_core(0);
    unsetenv("CLRADIX_TUNING");
#endif
}

/* One segmented call on keys and values (argsort: the indices) of n elements; device calls
   wait for gate when it is not NULL, and check that their event is still pending before
   they open it. 0, or 1 with msg filled. */
static int run_segments(test_device *t, const sort_call *call, clradix_key_type type, void *keys, void *values,
                        size_t n, const size_t *offsets, size_t num_segments, const clradix_options *options,
                        cl_event gate, char *msg, size_t msg_size)
{
    const size_t kb = key_bytes_of(type), vs = call->kind == SORT_KEYS ? 0 : call->value_size;
    clradix_status status;
    if (call->api == API_HOST) {
        if (call->kind == SORT_KEYS)
            status = clradix_sort_segments_keys_host(t->sorter, t->host_queue, type, keys, n, offsets, num_segments,
                                                     options);
        else if (call->kind == SORT_PAIRS)
            status = clradix_sort_segments_pairs_host(t->sorter, t->host_queue, type, keys, values, vs, n, offsets,
                                                      num_segments, options);
        else
            status = clradix_argsort_segments_host(t->sorter, t->host_queue, type, keys, values, vs, n, offsets,
                                                   num_segments, options);
        if (status != CLRADIX_SUCCESS)
            snprintf(msg, msg_size, "sort returned %s", clradix_status_string(status));
        return status != CLRADIX_SUCCESS;
    }
    cl_uint *device_offsets = malloc((num_segments + 1) * sizeof *device_offsets);
    for (size_t i = 0; i <= num_segments; ++i)
        device_offsets[i] = (cl_uint)offsets[i];
    cl_int err = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
    cl_mem key_buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE, n * kb + 1, NULL, &err);
    cl_mem value_buffer = vs ? clCreateBuffer(t->context, CL_MEM_READ_WRITE, n * vs + 1, NULL, &e2) : NULL;
    cl_mem offset_buffer = clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                          (num_segments + 1) * sizeof *device_offsets, device_offsets, &e3);
    free(device_offsets);
    int failed = err != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS;
    if (!failed)
        failed = clEnqueueWriteBuffer(t->queue, key_buffer, CL_TRUE, 0, n * kb, keys, 0, NULL, NULL) != CL_SUCCESS
              || (vs && clEnqueueWriteBuffer(t->queue, value_buffer, CL_TRUE, 0, n * vs, values, 0, NULL, NULL)
                            != CL_SUCCESS);
    if (failed)
        snprintf(msg, msg_size, "buffers could not be made");

    cl_event done = NULL;
    const cl_uint waits = gate ? 1 : 0;
    const cl_event *wait_list = gate ? &gate : NULL;
    status = CLRADIX_SUCCESS;
    if (!failed && call->kind == SORT_KEYS)
        status = clradix_sort_segments_keys(t->sorter, t->queue, type, key_buffer, n, offset_buffer, num_segments,
                                            options, waits, wait_list, &done);
    else if (!failed && call->kind == SORT_PAIRS)
        status = clradix_sort_segments_pairs(t->sorter, t->queue, type, key_buffer, value_buffer, vs, n,
                                             offset_buffer, num_segments, options, waits, wait_list, &done);
    else if (!failed)
        status = clradix_argsort_segments(t->sorter, t->queue, type, key_buffer, value_buffer, vs, n, offset_buffer,
                                          num_segments, options, waits, wait_list, &done);
    if (!failed && (status != CLRADIX_SUCCESS || !done)) {
        snprintf(msg, msg_size, "sort returned %s%s", clradix_status_string(status), done ? "" : " and no event");
        failed = 1;
    }
    if (!failed && gate) {
        cl_int state = CL_COMPLETE;
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
        if (state <= CL_COMPLETE) {
            snprintf(msg, msg_size, "the sort did not wait for the user event in its wait list");
            failed = 1;
        }
        clSetUserEventStatus(gate, CL_COMPLETE);
    }
    if (!failed
        && (clEnqueueReadBuffer(t->queue, key_buffer, CL_TRUE, 0, n * kb, keys, 1, &done, NULL) != CL_SUCCESS
            || (vs && clEnqueueReadBuffer(t->queue, value_buffer, CL_TRUE, 0, n * vs, values, 1, &done, NULL)
                          != CL_SUCCESS))) {
        snprintf(msg, msg_size, "the result could not be read");
        failed = 1;
    }
    if (done)
        clReleaseEvent(done);
    if (key_buffer)
        release_buffer(key_buffer);
    if (value_buffer)
        release_buffer(value_buffer);
    if (offset_buffer)
        release_buffer(offset_buffer);
    return failed;
}

enum { GAP_BYTE = 0xAB };

/* Whether the bytes of a and b outside elements [first, last) of size bytes each (n in all)
   are equal. */
static int gaps_equal(const void *a, const void *b, size_t size, size_t first, size_t last, size_t n)
{
    return !memcmp(a, b, first * size)
        && !memcmp((const char *)a + last * size, (const char *)b + last * size, (n - last) * size);
}

int segments_case(test_device *t, const sort_call *call, clradix_key_type type, dist d, const size_t *lengths,
                  size_t num_segments, size_t gap_before, size_t gap_after, const clradix_options *options,
                  uint64_t seed, cl_event gate, char *msg, size_t msg_size)
{
    size_t *offsets = malloc((num_segments + 1) * sizeof *offsets);
    offsets[0] = gap_before;
    for (size_t i = 0; i < num_segments; ++i)
        offsets[i + 1] = offsets[i] + lengths[i];
    const size_t n = offsets[num_segments] + gap_after, kb = key_bytes_of(type);
    const size_t vs = call->kind == SORT_KEYS ? 0 : call->value_size;
    void *in_keys = make_keys(type, d, n, seed), *keys = malloc(n * kb + 1);
    void *in_values = NULL, *values = NULL;
    memcpy(keys, in_keys, n * kb);
    if (vs) {
        in_values = make_values(vs, n);
        if (call->kind == SORT_ARGSORT)
            memset(in_values, GAP_BYTE, n * vs);  /* what argsort must not write outside the segments */
        values = malloc(n * vs + 1);
        memcpy(values, in_values, n * vs);
    }

    int failed = run_segments(t, call, type, keys, values, n, offsets, num_segments, options, gate, msg, msg_size);
    const size_t first = offsets[0], last = offsets[num_segments];
    if (!failed && !gaps_equal(keys, in_keys, kb, first, last, n)) {
        snprintf(msg, msg_size, "keys outside the segments changed");
        failed = 1;
    }
    if (!failed && vs && !gaps_equal(values, in_values, vs, first, last, n)) {
        snprintf(msg, msg_size, "values or indices outside the segments changed");
        failed = 1;
    }
    if (!failed && call->kind == SORT_ARGSORT && memcmp(keys, in_keys, n * kb)) {
        snprintf(msg, msg_size, "argsort changed the keys");
        failed = 1;
    }
    for (size_t s = 0; s < num_segments && !failed; ++s) {
        const size_t begin = offsets[s], len = lengths[s];
        size_t *perm = oracle_order(type, (char *)in_keys + begin * kb, len, options);
        char detail[200];
        if (call->kind == SORT_ARGSORT) {
            for (size_t i = 0; i < len; ++i)
                perm[i] += begin;  /* positions in the whole array */
            failed = check_argsort(in_keys, keys, 0, (char *)values + begin * vs, vs, len, perm, detail,
                                   sizeof detail);
        } else {
            failed = check_sorted(type, (char *)in_keys + begin * kb, (char *)keys + begin * kb,
                                  vs ? (char *)in_values + begin * vs : NULL, vs ? (char *)values + begin * vs : NULL,
                                  vs, len, perm, detail, sizeof detail);
        }
        if (failed)
            snprintf(msg, msg_size, "segment %zu (%zu keys at %zu): %s", s, len, begin, detail);
        free(perm);
    }
    free(offsets);
    free(in_keys);
    free(keys);
    free(in_values);
    free(values);
    return failed;
}

/* ---------------------------------------------------------------------------------
 * Records (test_records.c, kernel_check.c)
 * ------------------------------------------------------------------------------ */

/* The oracle's sort key of one record: its fields' images, most significant first. */
typedef struct oracle_row {
    uint64_t image[2 * CLRADIX_MAX_FIELDS];  /* a 128-bit field: two images, the high word first */
    unsigned fields;
    size_t index;
} oracle_row;

static int compare_rows(const void *a, const void *b)
{
    const oracle_row *x = a, *y = b;
    for (unsigned f = 0; f < x->fields; ++f)
        if (x->image[f] != y->image[f])
            return x->image[f] < y->image[f] ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

size_t *records_oracle(const unsigned char *records, size_t record_size, size_t n, const clradix_key_field *fields,
                       unsigned num_fields)
{
    oracle_row *rows = malloc((n ? n : 1) * sizeof *rows);
    for (size_t i = 0; i < n; ++i) {
        unsigned images = 0;
        rows[i].index = i;
        for (unsigned f = 0; f < num_fields; ++f) {
            const unsigned char *field = records + i * record_size + fields[f].offset;
            const clradix_options options = { 0, 0, fields[f].descending };
            if (fields[f].type == CLRADIX_U128 || fields[f].type == CLRADIX_I128) {
                uint64_t low, high;  /* a little-endian host's: the high word at byte 8 */
                memcpy(&low, field, 8);
                memcpy(&high, field + 8, 8);
                rows[i].image[images++] =
                    oracle_image(fields[f].type == CLRADIX_I128 ? CLRADIX_I64 : CLRADIX_U64, &high, 0, &options);
                rows[i].image[images++] = oracle_image(CLRADIX_U64, &low, 0, &options);
                continue;
            }
            uint64_t key = 0;  /* an aligned copy of the field, for oracle_image */
            memcpy(&key, field, key_bytes_of(fields[f].type));
            rows[i].image[images++] = oracle_image(fields[f].type, &key, 0, &options);
        }
        rows[i].fields = images;
    }
    qsort(rows, n, sizeof *rows, compare_rows);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    for (size_t i = 0; i < n; ++i)
        perm[i] = rows[i].index;
    free(rows);
    return perm;
}

unsigned char *make_records(size_t record_size, size_t n, uint64_t seed)
{
    unsigned char *records = malloc(record_size * n + 1);
    uint64_t state = seed;
    for (size_t i = 0; i < record_size * n; ++i) {
        const uint64_t r = rng_next(&state);
        records[i] = r % 8 == 0 ? (unsigned char)(r >> 8) : (unsigned char)((r >> 8) % 3 * 0x3F);
    }
    return records;
}

const char *const records_call_names[RECORDS_CALLS] = { "device sort", "device argsort", "host sort",
                                                         "host argsort" };

/* Sorts records (or their argsort into indices) through the call: device calls through
   buffers of their own, waiting on the returned event. A device argsort that changed the
   records: CLRADIX_ERROR_OPENCL. */
static clradix_status run_records(test_device *t, records_call call, unsigned char *records, size_t record_size,
                                  size_t n, const clradix_key_field *fields, unsigned num_fields, void *indices,
                                  size_t index_size)
{
    if (call == RECORDS_HOST_SORT)
        return clradix_sort_records_host(t->sorter, t->host_queue, records, record_size, n, fields, num_fields);
    if (call == RECORDS_HOST_ARGSORT)
        return clradix_argsort_records_host(t->sorter, t->host_queue, records, record_size, n, fields, num_fields,
                                            indices, index_size);
    cl_int err, index_err = CL_SUCCESS;
    const size_t bytes = record_size * n, index_bytes = index_size * n;
    cl_mem buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes ? bytes : 1,
                                   bytes ? records : (void *)&err, &err);
    cl_mem index_buffer = call == RECORDS_DEVICE_ARGSORT
                        ? clCreateBuffer(t->context, CL_MEM_READ_WRITE, index_bytes ? index_bytes : 1, NULL, &index_err)
                        : NULL;
    if (err != CL_SUCCESS || index_err != CL_SUCCESS)
        return CLRADIX_ERROR_OPENCL;
    cl_event done = NULL;
    clradix_status status =
        call == RECORDS_DEVICE_SORT
            ? clradix_sort_records(t->sorter, t->queue, buffer, record_size, n, fields, num_fields, 0, NULL, &done)
            : clradix_argsort_records(t->sorter, t->queue, buffer, record_size, n, fields, num_fields, index_buffer,
                                      index_size, 0, NULL, &done);
    if (status == CLRADIX_SUCCESS) {
        unsigned char *back = malloc(bytes + 1);
        if (clEnqueueReadBuffer(t->queue, buffer, CL_TRUE, 0, bytes, back, 1, &done, NULL) != CL_SUCCESS
            || (index_buffer && clEnqueueReadBuffer(t->queue, index_buffer, CL_TRUE, 0, index_bytes, indices, 1, &done,
                                                    NULL) != CL_SUCCESS)
            || (index_buffer && memcmp(back, records, bytes)))
            status = CLRADIX_ERROR_OPENCL;
        else if (!index_buffer)
            memcpy(records, back, bytes);
        free(back);
        clReleaseEvent(done);
    }
    release_buffer(buffer);
    if (index_buffer)
        release_buffer(index_buffer);
    return status;
}

int records_case(test_device *t, records_call call, size_t record_size, size_t n, const clradix_key_field *fields,
                 unsigned num_fields, size_t index_size, uint64_t seed, char *msg, size_t msg_size)
{
    unsigned char *records = make_records(record_size, n, seed);
    const int failed = records_check(t, call, records, record_size, n, fields, num_fields, index_size, msg, msg_size);
    free(records);
    return failed;
}

int records_check(test_device *t, records_call call, unsigned char *records, size_t record_size, size_t n,
                  const clradix_key_field *fields, unsigned num_fields, size_t index_size, char *msg, size_t msg_size)
{
    unsigned char *input = malloc(record_size * n + 1);
    memcpy(input, records, record_size * n);
    void *indices = malloc(index_size * n + 1);
    size_t *perm = records_oracle(records, record_size, n, fields, num_fields);
    const clradix_status status = run_records(t, call, records, record_size, n, fields, num_fields, indices,
                                              index_size);
    const int argsort = call == RECORDS_DEVICE_ARGSORT || call == RECORDS_HOST_ARGSORT;
    int failed = 0;
    if (status != CLRADIX_SUCCESS) {
        snprintf(msg, msg_size, "%s", clradix_status_string(status));
        failed = 1;
    } else if (argsort && memcmp(records, input, record_size * n)) {
        snprintf(msg, msg_size, "argsort changed the records");
        failed = 1;
    }
    for (size_t i = 0; i < n && !failed; ++i) {
        if (argsort) {
            const uint64_t got = get_key(indices, (unsigned)index_size, i);
            if (got != perm[i]) {
                snprintf(msg, msg_size, "index %zu of %zu: got %llu, want %zu", i, n, (unsigned long long)got, perm[i]);
                failed = 1;
            }
        } else if (memcmp(records + i * record_size, input + perm[i] * record_size, record_size)) {
            snprintf(msg, msg_size, "record %zu of %zu is not input record %zu", i, n, perm[i]);
            failed = 1;
        }
    }
    free(input);
    free(indices);
    free(perm);
    return failed;
}
