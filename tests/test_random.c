/*
 * Randomized sorts: key type, n, distribution, bit range, direction, keys, pairs or
 * argsort, and API flavour drawn at random, each checked against the oracle. CI runs a
 * fixed seed and count; CLRADIX_RANDOM_SEED and CLRADIX_RANDOM_CASES run others, and a
 * failure prints the seed and the case to repeat it. Then kernel shapes drawn from the
 * ranges clradix_tuning allows (CLRADIX_RANDOM_SHAPES of them, the same seed), each either
 * refused at creation or sorting right: whatever a caller asks for, no wrong result.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

static void setup(void) { open_dev(NULL); }

static unsigned long setting(const char *name, unsigned long fallback)
{
    const char *text = getenv(name);
    return text && *text ? strtoul(text, NULL, 0) : fallback;
}

START_TEST(test_random_sorts)
{
    const unsigned long seed = setting("CLRADIX_RANDOM_SEED", 20261130), cases = setting("CLRADIX_RANDOM_CASES", 300);
    uint64_t state = seed;
    char msg[256], name[64];
    for (unsigned long c = 0; c < cases; ++c) {
        const clradix_key_type type = (clradix_key_type)(rng_next(&state) % 6);
        const unsigned width = key_bytes_of(type) * 8;
        const dist d = (dist)(rng_next(&state) % DIST_COUNT);
        const size_t n = (size_t)(rng_next(&state) % ((uint64_t)1 << (rng_next(&state) % 19)));  /* up to 2^18 */
        clradix_options options = { 0, 0, (int)(rng_next(&state) % 2) };
        if (rng_next(&state) % 2) {  /* a bit range, empty ones included */
            options.begin_bit = (unsigned)(rng_next(&state) % (width + 1));
            options.end_bit = options.begin_bit + (unsigned)(rng_next(&state) % (width - options.begin_bit + 1));
            if (options.end_bit == 0)
                options.begin_bit = 0;  /* (0, 0) is every bit */
        }
        static const size_t value_sizes[] = { 4, 8, 16 };
        const sort_kind kind = (sort_kind)(rng_next(&state) % 3);
        const sort_call call = { rng_next(&state) % 2 ? API_HOST : API_DEVICE, kind,
                                 kind == SORT_KEYS ? 0 : value_sizes[rng_next(&state) % (kind == SORT_ARGSORT ? 2 : 3)] };
        const int failed = sort_case(&dev, &call, type, d, n, &options, c ^ seed, msg, sizeof msg);
        ck_assert_msg(!failed,
                      "seed %lu case %lu: type %d dist %s n=%zu bits [%u, %u) %s %s: %s "
                      "(repeat: CLRADIX_RANDOM_SEED=%lu CLRADIX_RANDOM_CASES=%lu)",
                      seed, c, type, dist_name(d), n, options.begin_bit, options.end_bit,
                      options.descending ? "descending" : "ascending", sort_call_name(&call, name, sizeof name), msg, seed,
                      c + 1);
    }
    printf("random: %lu sorts from seed %lu checked\n", cases, seed);
}
END_TEST

/* A power of two from 1 to 2^most. */
static unsigned power_of_two(uint64_t *state, unsigned most)
{
    return 1u << (rng_next(state) % (most + 1));
}

START_TEST(test_random_shapes)
{
    const unsigned long seed = setting("CLRADIX_RANDOM_SEED", 20261130), shapes = setting("CLRADIX_RANDOM_SHAPES", 4);
    uint64_t state = seed ^ 0x5A5A;
    char msg[256], name[64];
    int refused = 0;
    for (unsigned long c = 0; c < shapes; ++c) {
        clradix_tuning t;
        t.radix_bits = 1 + (unsigned)(rng_next(&state) % 8);
        t.work_group_size = power_of_two(&state, 10);
        t.keys_per_item = 1 + (unsigned)(rng_next(&state) % 256);
        t.rank_bits = 1 + (unsigned)(rng_next(&state) % t.radix_bits);
        t.groups_per_unit = 1 + (unsigned)(rng_next(&state) % 16);
        t.hist_copies = power_of_two(&state, 10);
        if (t.hist_copies > t.work_group_size)
            t.hist_copies = t.work_group_size;
        t.fused = 1 + (unsigned)(rng_next(&state) % 2);
        t.small_n = power_of_two(&state, 14);
        char shape[160];
        snprintf(shape, sizeof shape,
                 "RADIX_BITS=%u,WG=%u,KPT=%u,RANK_BITS=%u,GROUPS_PER_CU=%u,HIST_COPIES=%u,FUSED=%u,SMALL_N=%u", t.radix_bits, t.work_group_size, t.keys_per_item, t.rank_bits, t.groups_per_unit,
                 t.hist_copies, t.fused, t.small_n);
        test_device td;
        const clradix_status status = test_device_open(&td, &t);
        if (status != CLRADIX_SUCCESS) {  /* refused, with a status: never a wrong result */
            ck_assert_msg(status == CLRADIX_ERROR_UNSUPPORTED, "shape %s: %s", shape, clradix_status_string(status));
            ++refused;
            continue;
        }
        static const sort_call calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_DEVICE, SORT_PAIRS, 4 } };
        static const size_t sizes[] = { 1000, 5000, 70001 };
        for (int z = 0; z < 3; ++z)
            for (int k = 0; k < 3; ++k) {  /* u32 keys, u32 pairs, u64 keys */
                const clradix_key_type type = k == 2 ? CLRADIX_U64 : CLRADIX_U32;
                const int failed = sort_case(&td, &calls[k == 1], type, DIST_RANDOM, sizes[z], NULL, c * 10 + z, msg,
                                             sizeof msg);
                ck_assert_msg(!failed, "shape %s (seed %lu, shape %lu): type %d n=%zu %s: %s", shape, seed, c, type,
                              sizes[z], sort_call_name(&calls[k == 1], name, sizeof name), msg);
            }
        test_device_close(&td);
    }
    printf("random: %lu shapes from seed %lu, %d refused at creation, the others sorting right\n", shapes, seed,
           refused);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("random");
    TCase *tc = tcase_create("random");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_random_sorts);
    suite_add_tcase(s, tc);
    TCase *shapes = tcase_create("shapes");
    tcase_set_timeout(shapes, 900);
    tcase_add_test(shapes, test_random_shapes);
    suite_add_tcase(s, shapes);
    return run_device_suite(s, "test_random");
}
