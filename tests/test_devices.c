/*
 * Two devices in one platform (CTest runs this with POCL_DEVICES="pthread basic"):
 * device numbering and selection, a queue of the other device, a device outside the
 * sorter's context, both devices sorting one buffer in turn, and one host sort shared by
 * both devices (each in a context of its own), by one device twice, and by the same
 * sorter twice. With CLRADIX_TEST_THIRD_DEVICE, one host sort shared by three
 * implementations instead.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_device_id devices[2];
static cl_context shared;  /* holds both devices */

static void setup(void)
{
    cl_uint count = 0;
    ck_assert_int_eq(clradix_device_list(2, devices, &count), CLRADIX_SUCCESS);
    ck_assert_uint_ge(count, 2);
    cl_int err;
    shared = clCreateContext(NULL, 2, devices, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
}

static void teardown(void)
{
    clReleaseContext(shared);
}

static void name_of(cl_device_id device, char *buf, size_t size)
{
    buf[0] = '\0';
    clGetDeviceInfo(device, CL_DEVICE_NAME, size - 1, buf, NULL);
}

START_TEST(test_selection)
{
    cl_device_id found;
    ck_assert_int_eq(clradix_device_find("0", &found), CLRADIX_SUCCESS);
    ck_assert_ptr_eq(found, devices[0]);
    ck_assert_int_eq(clradix_device_find("1", &found), CLRADIX_SUCCESS);
    ck_assert_ptr_eq(found, devices[1]);
    ck_assert_int_eq(clradix_device_find("2", &found), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_device_find("no such device", &found), CLRADIX_ERROR_INVALID_ARGUMENT);

    /* Substrings of "platform name device name", ignoring case. */
    char name[256];
    for (int i = 0; i < 2; ++i) {
        name_of(devices[i], name, sizeof name);
        const char *which = strstr(name, "pthread") ? "PThread" : "BASIC";
        ck_assert_int_eq(clradix_device_find(which, &found), CLRADIX_SUCCESS);
        ck_assert_ptr_eq(found, devices[i]);
    }
    ck_assert_int_eq(clradix_device_find("portable computing", &found), CLRADIX_SUCCESS);  /* the platform */
    ck_assert_ptr_eq(found, devices[0]);

    /* The default: CLRADIX_DEVICE, else the first GPU (none here), else the first device. */
    unsetenv("CLRADIX_DEVICE");
    ck_assert_int_eq(clradix_device_find(NULL, &found), CLRADIX_SUCCESS);
    ck_assert_ptr_eq(found, devices[0]);
    setenv("CLRADIX_DEVICE", "1", 1);
    ck_assert_int_eq(clradix_device_find(NULL, &found), CLRADIX_SUCCESS);
    ck_assert_ptr_eq(found, devices[1]);
    clradix_sorter *sorter;
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);
    ck_assert_ptr_eq(clradix_sorter_device(sorter), devices[1]);
    clradix_sorter_release(sorter);
    setenv("CLRADIX_DEVICE", "nothing like it", 1);
    sorter = (clradix_sorter *)0x1;
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(sorter, (clradix_sorter *)0x1);
    unsetenv("CLRADIX_DEVICE");
}
END_TEST

/* A queue of the other device, and a device outside the context, are refused. */
START_TEST(test_wrong_device)
{
    cl_int err;
    clradix_sorter *sorter;
    ck_assert_int_eq(clradix_sorter_create(shared, devices[0], &sorter), CLRADIX_SUCCESS);
    cl_command_queue other = clCreateCommandQueue(shared, devices[1], 0, &err);
    const size_t n = 5000;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 3), *out = malloc(n * 4);
    cl_mem buffer = clCreateBuffer(shared, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, keys, &err);
    cl_event event = (cl_event)0x1;
    ck_assert_int_eq(clradix_sort_keys(sorter, other, CLRADIX_U32, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(event, (cl_event)0x1);
    memcpy(out, keys, n * 4);
    ck_assert_int_eq(clradix_sort_keys_host(sorter, other, CLRADIX_U32, out, n, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_mem_eq(out, keys, n * 4);
    ck_assert_int_eq(clEnqueueReadBuffer(other, buffer, CL_TRUE, 0, n * 4, out, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_mem_eq(out, keys, n * 4);

    cl_context alone = clCreateContext(NULL, 1, &devices[0], NULL, NULL, &err);
    clradix_sorter *s = (clradix_sorter *)0x1;
    ck_assert_int_eq(clradix_sorter_create(alone, devices[1], &s), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(s, (clradix_sorter *)0x1);

    clReleaseContext(alone);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(other);
    clradix_sorter_release(sorter);
    free(keys);
    free(out);
}
END_TEST

/* One buffer, sorted by one device and then the other way by the other. */
START_TEST(test_both_devices)
{
    cl_int err;
    clradix_sorter *sorters[2];
    cl_command_queue queues[2];
    for (int i = 0; i < 2; ++i) {
        ck_assert_int_eq(clradix_sorter_create(shared, devices[i], &sorters[i]), CLRADIX_SUCCESS);
        queues[i] = clCreateCommandQueue(shared, devices[i], 0, &err);
    }
    const size_t n = 200000;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 5), *out = malloc(n * 4);
    cl_mem buffer = clCreateBuffer(shared, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, keys, &err);
    cl_event first, second;
    const clradix_options down = { 0, 0, 1 };
    ck_assert_int_eq(clradix_sort_keys(sorters[0], queues[0], CLRADIX_U32, buffer, n, NULL, 0, NULL, &first),
                     CLRADIX_SUCCESS);
    ck_assert_int_eq(clradix_sort_keys(sorters[1], queues[1], CLRADIX_U32, buffer, n, &down, 1, &first, &second),
                     CLRADIX_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &second), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queues[0], buffer, CL_TRUE, 0, n * 4, out, 0, NULL, NULL), CL_SUCCESS);
    size_t *perm = oracle_order(CLRADIX_U32, keys, n, &down);
    char msg[256];
    ck_assert_msg(!check_sorted(CLRADIX_U32, keys, out, NULL, NULL, 0, n, perm, msg, sizeof msg), "%s", msg);
    free(perm);
    clReleaseEvent(first);
    clReleaseEvent(second);
    clReleaseMemObject(buffer);
    for (int i = 0; i < 2; ++i) {
        clReleaseCommandQueue(queues[i]);
        clradix_sorter_release(sorters[i]);
    }
    free(keys);
    free(out);
}
END_TEST

/* The cases a host sort shared by several devices runs. */
typedef struct multi_case {
    clradix_key_type type;
    sort_kind kind;
    size_t value_size;
    clradix_options options;
} multi_case;

static const multi_case multi_cases[] = {
    { CLRADIX_U32, SORT_KEYS, 0, { 0 } },
    { CLRADIX_F32, SORT_PAIRS, 4, { 0, 0, 1 } },
    { CLRADIX_I64, SORT_PAIRS, 16, { 5, 50, 0 } },
    { CLRADIX_F64, SORT_ARGSORT, 8, { 0 } },
    { CLRADIX_U32, SORT_ARGSORT, 4, { 0, 0, 1 } },
    { CLRADIX_U16, SORT_PAIRS, 4, { 0 } },
    { CLRADIX_I8, SORT_KEYS, 0, { 0, 0, 1 } },
    { CLRADIX_BF16, SORT_ARGSORT, 4, { 2, 14, 0 } },
};
enum { MULTI_CASES = sizeof multi_cases / sizeof multi_cases[0] };

/* Case c (seeded by seed) shared by the count sorters of set, against the oracle and bit
   for bit against the same sort by single alone. */
static void check_multi(clradix_sorter *const *set, unsigned count, clradix_sorter *single, const multi_case *c,
                        uint64_t seed)
{
    const size_t n = 200003;
    const size_t kb = key_bytes_of(c->type), vs = c->value_size;
    void *in = make_keys(c->type, DIST_LOW_ENTROPY, n, seed), *keys = malloc(n * kb);
    void *in_values = vs ? make_values(vs, n) : NULL, *values = vs ? malloc(n * vs) : NULL;
    void *single_keys = malloc(n * kb), *single_values = vs ? malloc(n * vs) : NULL;
    memcpy(keys, in, n * kb);
    memcpy(single_keys, in, n * kb);
    if (vs) {
        memcpy(values, in_values, n * vs);
        memcpy(single_values, in_values, n * vs);
    }
    const clradix_options *o = &c->options;
    clradix_status status, alone;
    switch (c->kind) {
    case SORT_KEYS:
        status = clradix_sort_keys_host_multi(set, count, c->type, keys, n, o);
        alone = clradix_sort_keys_host(single, NULL, c->type, single_keys, n, o);
        break;
    case SORT_PAIRS:
        status = clradix_sort_pairs_host_multi(set, count, c->type, keys, values, vs, n, o);
        alone = clradix_sort_pairs_host(single, NULL, c->type, single_keys, single_values, vs, n, o);
        break;
    default:
        status = clradix_argsort_host_multi(set, count, c->type, keys, values, vs, n, o);
        alone = clradix_argsort_host(single, NULL, c->type, single_keys, single_values, vs, n, o);
        break;
    }
    ck_assert_int_eq(status, CLRADIX_SUCCESS);
    ck_assert_int_eq(alone, CLRADIX_SUCCESS);
    ck_assert_mem_eq(keys, single_keys, n * kb);  /* bit for bit */
    if (vs)
        ck_assert_mem_eq(values, single_values, n * vs);
    size_t *perm = oracle_order(c->type, in, n, o);
    char msg[256];
    if (c->kind == SORT_ARGSORT) {
        ck_assert_mem_eq(keys, in, n * kb);
        for (size_t i = 0; i < n; ++i)
            ck_assert_uint_eq(vs == 4 ? ((uint32_t *)values)[i] : ((uint64_t *)values)[i], perm[i]);
    } else {
        ck_assert_msg(!check_sorted(c->type, in, keys, in_values, values, vs, n, perm, msg, sizeof msg),
                      "type %d seed %llu: %s", c->type, (unsigned long long)seed, msg);
    }
    free(perm);
    free(in);
    free(keys);
    free(in_values);
    free(values);
    free(single_keys);
    free(single_values);
}

/* A sorter for device in a context of its own. */
static clradix_sorter *sorter_alone(cl_device_id device)
{
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clradix_sorter *sorter;
    ck_assert_int_eq(clradix_sorter_create(context, device, &sorter), CLRADIX_SUCCESS);
    clReleaseContext(context);
    return sorter;
}

/* A sorter for device in a context of its own whose memory limit is 128 KB (the cases'
   data: 0.2-7 MB), so that a host sort shared with others goes by parts. */
static clradix_sorter *sorter_sharing(cl_device_id device)
{
    clradix_sorter *sorter = sorter_alone(device);
    ck_assert_int_eq(clradix_sorter_set_memory_limit(sorter, 128 * 1024), CLRADIX_SUCCESS);
    return sorter;
}

/* The multi-device host calls against the oracle, and equal to the single-device sort. */
START_TEST(test_multi_device)
{
    clradix_sorter *own[2] = { sorter_sharing(devices[0]), sorter_sharing(devices[1]) };
    clradix_sorter *reference = sorter_alone(devices[0]);
    clradix_sorter *const sets[][2] = { { own[0], own[1] }, { own[1], own[1] } };
    for (size_t set = 0; set < 2; ++set)
        for (size_t c = 0; c < MULTI_CASES; ++c)
            check_multi(sets[set], 2, reference, &multi_cases[c], 60 + c);

    /* Where a device takes the whole sort at once, that device sorts it alone (by parts,
       the host's partition would cost more than the sort): still the same result. */
    clradix_sorter *const unlimited[2] = { reference, own[1] };
    check_multi(unlimited, 2, reference, &multi_cases[1], 70);
    clradix_sorter_release(reference);

    /* Rejected before any work. */
    uint32_t k[4] = { 3, 2, 1, 0 }, idx[4];
    clradix_sorter *const with_null[2] = { own[0], NULL };
    ck_assert_int_eq(clradix_sort_keys_host_multi(sets[0], 0, CLRADIX_U32, k, 4, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host_multi(NULL, 2, CLRADIX_U32, k, 4, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host_multi(with_null, 2, CLRADIX_U32, k, 4, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs_host_multi(sets[0], 2, CLRADIX_U32, k, NULL, 4, 4, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs_host_multi(sets[0], 2, CLRADIX_U32, k, idx, 12, 4, NULL),
                     CLRADIX_ERROR_UNSUPPORTED);
    ck_assert_int_eq(clradix_argsort_host_multi(sets[0], 2, CLRADIX_U32, k, idx, 2, 4, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert(k[0] == 3 && k[3] == 0);
    ck_assert_int_eq(clradix_sort_keys_host_multi(sets[0], 2, CLRADIX_U32, k, 0, NULL), CLRADIX_SUCCESS);
    ck_assert_int_eq(clradix_sort_keys_host_multi(sets[0], 1, CLRADIX_U32, k, 4, NULL), CLRADIX_SUCCESS);
    ck_assert(k[0] == 0 && k[1] == 1 && k[2] == 2 && k[3] == 3);
    for (int i = 0; i < 2; ++i)
        clradix_sorter_release(own[i]);
}
END_TEST

/* Three implementations: one host sort shared by POCL's pthread and basic devices and the
   device CLRADIX_TEST_THIRD_DEVICE names (ctest: Intel's CPU runtime), each in a context
   of its own, by parts, equal bit for bit to the third's in-core sort and to the oracle. */
START_TEST(test_three_implementations)
{
    const char *names[3] = { "pthread", "basic", getenv("CLRADIX_TEST_THIRD_DEVICE") };
    clradix_sorter *set[3];
    cl_device_id device;
    for (int i = 0; i < 3; ++i) {
        ck_assert_msg(clradix_device_find(names[i], &device) == CLRADIX_SUCCESS, "no device %s", names[i]);
        set[i] = sorter_sharing(device);
    }
    clradix_sorter *reference = sorter_alone(device);  /* the third, sorting alone in core */
    for (size_t c = 0; c < MULTI_CASES; ++c)
        check_multi(set, 3, reference, &multi_cases[c], 80 + c);
    for (int i = 0; i < 3; ++i)
        clradix_sorter_release(set[i]);
    clradix_sorter_release(reference);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("devices");
    TCase *tc = tcase_create("devices");
    tcase_set_timeout(tc, 300);
    if (getenv("CLRADIX_TEST_THIRD_DEVICE")) {
        tcase_add_test(tc, test_three_implementations);
        suite_add_tcase(s, tc);
        return run_suite_with_devices(s, "test_devices", 3);
    }
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_selection);
    tcase_add_test(tc, test_wrong_device);
    tcase_add_test(tc, test_both_devices);
    tcase_add_test(tc, test_multi_device);
    suite_add_tcase(s, tc);
    return run_suite_with_devices(s, "test_devices", 2);
}
