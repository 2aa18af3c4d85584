/* The benchmark's distributions of real data (unit, normal, zipf): keys as applications
   have them, each drawn independently, as a key of its type's bit pattern; and the skewed
   inputs of the IPS4o benchmark suite (exponential, rootdup, twodup, almostsorted). */
#include "bench.h"

#include <math.h>
#include <string.h>

/* A double uniform in [0, 1) from the top `bits` bits of a random word: a multiple of
   2^-bits, so exactly a float of any type with that many bits of precision. */
static double unit_of(uint64_t r, unsigned bits)
{
    return ldexp((double)(r >> (64 - bits)), -(int)bits);
}

/* A standard normal (Box-Muller, one of the pair). */
static double standard_normal(uint64_t *state)
{
    const double u = 1.0 - unit_of(bench_random(state), 53), v = unit_of(bench_random(state), 53);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Zipf's law with exponent 1.1 over 1 .. most: Devroye's rejection from the unbounded law,
   draws past most drawn again. */
static uint64_t zipf(uint64_t *state, uint64_t most)
{
    const double s = 1.1, b = pow(2.0, s - 1.0);
    for (;;) {
        const double u = 1.0 - unit_of(bench_random(state), 53), v = unit_of(bench_random(state), 53);
        const double x = floor(pow(u, -1.0 / (s - 1.0)));
        if (!(x >= 1.0) || x > (double)most)
            continue;
        const double t = pow(1.0 + 1.0 / x, s - 1.0);
        if (v * x * (t - 1.0) / (b - 1.0) <= t / b)
            return (uint64_t)x;
    }
}

/* IEEE half of a float that is finite in half, rounded to nearest. */
static uint64_t half_bits(double v)
{
    const uint64_t sign = signbit(v) ? 0x8000u : 0;
    const double a = fabs(v);
    if (a < 0x1p-14)  /* subnormal (or zero): units of 2^-24 */
        return sign | (uint64_t)nearbyint(a * 0x1p24);
    int e;
    const double m = frexp(a, &e);  /* a = m * 2^e, m in [0.5, 1) */
    uint64_t exponent = (uint64_t)(e + 14), fraction = (uint64_t)nearbyint((2.0 * m - 1.0) * 1024.0);
    if (fraction == 1024)
        fraction = 0, ++exponent;
    return exponent >= 31 ? sign | 0x7C00u : sign | exponent << 10 | fraction;
}

/* v (finite) as a key of float type `type`. */
static uint64_t float_key(clradix_key_type type, double v)
{
    const float f = (float)v;
    uint32_t f_bits;
    memcpy(&f_bits, &f, sizeof f_bits);
    uint64_t d_bits;
    memcpy(&d_bits, &v, sizeof d_bits);
    switch (type) {
    case CLRADIX_F64: case CLRADIX_F64_NUMPY: return d_bits;
    case CLRADIX_F16: case CLRADIX_F16_NUMPY: return half_bits(v);
    case CLRADIX_BF16: case CLRADIX_BF16_NUMPY: return f_bits >> 16;  /* toward zero */
    default: return f_bits;
    }
}

/* The bits of precision of a float type (its significand's, the hidden one included). */
static unsigned float_precision(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_F64: case CLRADIX_F64_NUMPY: return 53;
    case CLRADIX_F16: case CLRADIX_F16_NUMPY: return 11;
    case CLRADIX_BF16: case CLRADIX_BF16_NUMPY: return 8;
    default: return 24;
    }
}

static int is_float(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_F32: case CLRADIX_F64: case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F32_NUMPY:
    case CLRADIX_F64_NUMPY: case CLRADIX_F16_NUMPY: case CLRADIX_BF16_NUMPY: return 1;
    default: return 0;
    }
}

static int is_signed(clradix_key_type type)
{
    return type == CLRADIX_I8 || type == CLRADIX_I16 || type == CLRADIX_I32 || type == CLRADIX_I64;
}

uint64_t real_key(clradix_key_type type, bench_dist d, uint64_t *state)
{
    const unsigned bits = 8 * type_bytes(type);
    const uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    /* integers: their largest value, and a normal's centre and spread */
    const uint64_t most = is_signed(type) ? all >> 1 : all;
    if (is_float(type)) {
        switch (d) {
        case DIST_UNIT: return float_key(type, unit_of(bench_random(state), float_precision(type)));
        case DIST_NORMAL: return float_key(type, standard_normal(state));
        default: return float_key(type, (double)zipf(state, 1ull << float_precision(type)));  /* exact */
        }
    }
    switch (d) {
    case DIST_UNIT: return bench_random(state) & (bits > 20 ? (1ull << 20) - 1 : all);
    case DIST_NORMAL: {
        /* centred in the type's range (at 0 if signed), a standard deviation of 2^(bits/2) */
        const double centre = is_signed(type) ? 0.0 : ldexp(1.0, (int)bits - 1);
        double v = nearbyint(centre + ldexp(standard_normal(state), (int)bits / 2));
        const double low = is_signed(type) ? -ldexp(1.0, (int)bits - 1) : 0.0;
        v = v < low ? low : v > (double)most ? (double)most : v;
        return is_signed(type) ? (uint64_t)(int64_t)v & all : (uint64_t)v;
    }
    default: return zipf(state, most);
    }
}

static unsigned ceil_log2(uint64_t x)
{
    unsigned l = 0;
    while (l < 64 && (1ull << l) < x)
        ++l;
    return l;
}

int finite_key(clradix_key_type type, uint64_t key)
{
    if (!is_float(type))
        return 1;
    /* the sign bit and the significand's hidden one cancel */
    const unsigned bits = 8 * type_bytes(type), exponent_bits = bits - float_precision(type);
    const uint64_t all_ones = (1ull << exponent_bits) - 1;
    return ((key >> (bits - 1 - exponent_bits)) & all_ones) != all_ones;
}

/* A hash as a key of type (make_keys keeps its low bytes): floats a finite pattern, hashed
   again until one is, so that equal draws stay equal keys. */
static uint64_t hashed_key(clradix_key_type type, uint64_t h)
{
    while (!finite_key(type, h))
        h = bench_mix(h);
    return h;
}

/* The integer i as a key of type: floats the nearest value; integers i (make_keys keeps
   its low bytes: narrow ones wrap). */
static uint64_t integer_key(clradix_key_type type, uint64_t i)
{
    return is_float(type) ? float_key(type, (double)i) : i;
}

uint64_t suite_key(clradix_key_type type, bench_dist d, size_t i, size_t n, uint64_t *state)
{
    switch (d) {
    case DIST_EXPONENTIAL: {
        const unsigned bits = 8 * type_bytes(type), lg_n = ceil_log2(n) + 1, lg = lg_n < bits ? lg_n : bits;
        const uint64_t range = 1ull << (bench_random(state) % (lg ? lg : 1));
        return hashed_key(type, bench_mix(range + bench_random(state) % range));
    }
    case DIST_ROOTDUP: {
        const uint64_t root = (uint64_t)sqrt((double)n);
        return integer_key(type, root ? i % root : 0);
    }
    case DIST_TWODUP: {
        uint64_t m = 1;
        while (2 * m <= n)
            m *= 2;
        return integer_key(type, ((uint64_t)i * i + m / 2) % m);
    }
    default: return integer_key(type, i);  /* almostsorted, before its swaps */
    }
}
