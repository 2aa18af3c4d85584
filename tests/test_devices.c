/*
 * Two devices in one platform (CTest runs this with POCL_DEVICES="pthread basic"):
 * device numbering and selection, a queue of the other device, a device outside the
 * sorter's context, and both devices sorting one buffer in turn.
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

int main(void)
{
    Suite *s = suite_create("devices");
    TCase *tc = tcase_create("devices");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_selection);
    tcase_add_test(tc, test_wrong_device);
    tcase_add_test(tc, test_both_devices);
    suite_add_tcase(s, tc);
    return run_suite_with_devices(s, "test_devices", 2);
}
