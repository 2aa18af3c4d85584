/*
 * The API's behaviour on a real device: events and wait lists, every rejected call (its
 * status, and that it changed nothing), sorter creation and build failures, and several
 * host threads sharing one sorter.
 */
#include "testutil.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void) { open_dev(NULL); }

/* --- Events --------------------------------------------------------------------------- */

static cl_mem upload(const void *data, size_t bytes)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return buffer;
}

static void download(cl_mem buffer, void *data, size_t bytes)
{
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, buffer, CL_TRUE, 0, bytes, data, 0, NULL, NULL), CL_SUCCESS);
}

/* Reads buffer back and asserts it holds keys (n u32) in the oracle's order. */
static void expect_sorted_u32(cl_mem buffer, const uint32_t *keys, size_t n)
{
    uint32_t *out = malloc(n * 4);
    download(buffer, out, n * 4);
    size_t *perm = oracle_order(CLRADIX_U32, keys, n, NULL);
    char msg[256];
    ck_assert_msg(!check_sorted(CLRADIX_U32, keys, out, NULL, NULL, 0, n, perm, msg, sizeof msg), "%s", msg);
    free(perm);
    free(out);
}

static cl_int event_status(cl_event event)
{
    cl_int status = 0;
    ck_assert_int_eq(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
                     CL_SUCCESS);
    return status;
}

/* The sort waits for its wait list, returns at once, and its event marks the end. */
START_TEST(test_event_user_gate)
{
    const size_t n = 50000;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 5);
    cl_mem buffer = upload(keys, n * 4);
    cl_int err;
    cl_event gate = clCreateUserEvent(dev.context, &err), done = NULL;
    ck_assert_int_eq(err, CL_SUCCESS);

    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, n, NULL, 1, &gate, &done),
                     CLRADIX_SUCCESS);
    ck_assert_ptr_nonnull(done);
    ck_assert_int_gt(event_status(done), CL_COMPLETE);  /* still held back by the gate */

    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    expect_sorted_u32(buffer, keys, n);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(buffer);
    free(keys);
}
END_TEST

/* The wait list holds another queue's upload of the keys: the sort must see the keys,
   not what the buffer held before. */
START_TEST(test_event_other_queue)
{
    const size_t n = 1 << 20;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 6), *out = calloc(n, 4);
    cl_mem buffer = upload(out, n * 4);  /* zeros until the upload lands */
    cl_int err;
    cl_command_queue uploader = clCreateCommandQueue(dev.context, dev.device, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event uploaded = NULL, done = NULL;
    ck_assert_int_eq(clEnqueueWriteBuffer(uploader, buffer, CL_FALSE, 0, n * 4, keys, 0, NULL, &uploaded), CL_SUCCESS);
    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, n, NULL, 1, &uploaded, &done),
                     CLRADIX_SUCCESS);
    clFlush(uploader);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    expect_sorted_u32(buffer, keys, n);
    clReleaseEvent(done);
    clReleaseEvent(uploaded);
    clReleaseCommandQueue(uploader);
    clReleaseMemObject(buffer);
    free(keys);
    free(out);
}
END_TEST

/* Nothing to sort still yields an event that follows the wait list. */
START_TEST(test_event_empty_sort)
{
    uint32_t key = 7;
    cl_mem buffer = upload(&key, 4);
    cl_int err;
    cl_event gate = clCreateUserEvent(dev.context, &err), done = NULL;
    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, 0, NULL, 1, &gate, &done),
                     CLRADIX_SUCCESS);
    ck_assert_ptr_nonnull(done);
    ck_assert_int_gt(event_status(done), CL_COMPLETE);
    clSetUserEventStatus(gate, CL_COMPLETE);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    /* Without an event pointer it succeeds too. */
    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, 0, NULL, 0, NULL, NULL),
                     CLRADIX_SUCCESS);
    clReleaseEvent(gate);
    clReleaseMemObject(buffer);
}
END_TEST

/* --- Argument checks that need a device ------------------------------------------------- */

/* Every rejected call returns its status and leaves the buffer as it was. */
START_TEST(test_rejected_calls)
{
    const size_t n = 1000;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 9), *out = malloc(n * 8);
    cl_mem buffer = upload(keys, n * 4), values = upload(keys, n * 4);
    cl_int err;
    cl_mem read_only = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, keys, &err);
    cl_context other = clCreateContext(NULL, 1, &dev.device, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue other_queue = clCreateCommandQueue(other, dev.device, 0, &err);
    cl_mem other_buffer = clCreateBuffer(other, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    cl_event event = (cl_event)0x1;  /* must stay untouched */
    clradix_sorter *s = dev.sorter;
    cl_command_queue q = dev.queue;
    const clradix_options backwards = { 20, 10, 0 }, too_wide = { 0, 33, 0 };

    ck_assert_int_eq(clradix_sort_keys(NULL, q, CLRADIX_U32, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, NULL, CLRADIX_U32, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, NULL, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, (clradix_key_type)99, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, buffer, n, &backwards, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, buffer, n, &too_wide, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, buffer, n, NULL, 1, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, buffer, n, NULL, 0, &event, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, other_queue, CLRADIX_U32, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, other_buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, buffer, n + 1, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, read_only, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U32, buffer, CLRADIX_MAX_N + 1, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys(s, q, CLRADIX_U64, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* n 64-bit keys do not fit */

    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, buffer, NULL, 4, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, buffer, values, 0, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, buffer, values, 3, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_UNSUPPORTED);
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, buffer, values, 8, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* values hold n * 4 bytes only */
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, buffer, buffer, 4, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* keys and values are one buffer */
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, read_only, values, 4, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);

    /* Argsort: indices of 4 or 8 bytes, writable, apart from the keys (which may be read-only). */
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, buffer, NULL, 4, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, buffer, values, 2, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, buffer, values, 16, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, buffer, buffer, 4, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, values, read_only, 4, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, buffer, values, 8, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* n 8-byte indices do not fit */

    /* Overlapping sub-buffers of one parent. */
    cl_mem parent = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
    cl_buffer_region first = { 0, 8192 }, second = { 4096, 8192 };
    cl_mem a = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &first, &err);
    cl_mem b = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &second, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, a, b, 4, 2048, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_sort_pairs(s, q, CLRADIX_U32, a, parent, 4, 2048, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_ptr_eq(event, (cl_event)0x1);  /* (sub-buffers that do not overlap: test_sub_buffers) */
    cl_event done = NULL;

    /* Host arrays. */
    memcpy(out, keys, n * 4);
    ck_assert_int_eq(clradix_sort_keys_host(NULL, NULL, CLRADIX_U32, out, n, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host(s, NULL, CLRADIX_U32, NULL, n, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host(s, other_queue, CLRADIX_U32, out, n, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host(s, NULL, CLRADIX_U32, out, n, &too_wide), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host(s, NULL, (clradix_key_type)-1, out, n, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_argsort_host(s, NULL, CLRADIX_U32, out, NULL, 4, n, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_argsort_host(s, NULL, CLRADIX_U32, out, out + n, 3, n, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_argsort_host(NULL, NULL, CLRADIX_U32, out, out + n, 4, n, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs_host(s, NULL, CLRADIX_U32, out, NULL, 4, n, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs_host(s, NULL, CLRADIX_U32, out, out + n, 0, n, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs_host(s, NULL, CLRADIX_U32, out, out + n, 12, n, NULL),
                     CLRADIX_ERROR_UNSUPPORTED);
    ck_assert_mem_eq(out, keys, n * 4);

    /* Nothing above touched the device buffer. */
    download(buffer, out, n * 4);
    ck_assert_mem_eq(out, keys, n * 4);

    /* Argsort reads read-only keys and leaves them as they were. */
    ck_assert_int_eq(clradix_argsort(s, q, CLRADIX_U32, read_only, values, 4, n, NULL, 0, NULL, &done),
                     CLRADIX_SUCCESS);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    download(values, out, n * 4);
    size_t *perm = oracle_order(CLRADIX_U32, keys, n, NULL);
    for (size_t i = 0; i < n; ++i)
        ck_assert_uint_eq(out[i], perm[i]);
    free(perm);
    download(read_only, out, n * 4);
    ck_assert_mem_eq(out, keys, n * 4);

    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(parent);
    clReleaseMemObject(other_buffer);
    clReleaseCommandQueue(other_queue);
    clReleaseContext(other);
    clReleaseMemObject(read_only);
    clReleaseMemObject(values);
    clReleaseMemObject(buffer);
    free(keys);
    free(out);
}
END_TEST

/* Sub-buffers at a non-zero origin and longer than n, keys and values (or indices) in one
   parent: the n elements are sorted, and every other byte of the parent is as it was. */
START_TEST(test_sub_buffers)
{
    static const struct { sort_call call; clradix_key_type type; } cases[] = {
        { { API_DEVICE, SORT_KEYS, 0 }, CLRADIX_U32 },
        { { API_DEVICE, SORT_PAIRS, 8 }, CLRADIX_F64 },
        { { API_DEVICE, SORT_ARGSORT, 4 }, CLRADIX_I64 },
        { { API_DEVICE, SORT_PAIRS, 16 }, CLRADIX_I32 },
    };
    static const size_t sizes[] = { 1000, 100003 };  /* one launch, several passes */
    cl_uint align_bits = 0;
    ck_assert_int_eq(clGetDeviceInfo(dev.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL),
                     CL_SUCCESS);
    const size_t align = align_bits / 8 > 16 ? align_bits / 8 : 16;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (size_t z = 0; z < 2; ++z) {
            const size_t n = sizes[z], kb = key_bytes_of(cases[c].type), vs = cases[c].call.value_size;
            /* Keys at one aligned origin, values at the next, each region 3 alignments longer than n. */
            const size_t key_at = align, key_len = n * kb + 3 * align;
            const size_t value_at = (key_at + key_len + align) / align * align, value_len = n * vs + 3 * align;
            const size_t total = value_at + value_len + align;
            unsigned char *before = malloc(total), *after = malloc(total);
            for (size_t i = 0; i < total; ++i)
                before[i] = (unsigned char)(i * 7 ^ 0x5A);
            void *keys = make_keys(cases[c].type, DIST_LOW_ENTROPY, n, 31 + c), *values = vs ? make_values(vs, n) : NULL;
            memcpy(before + key_at, keys, n * kb);
            if (vs)
                memcpy(before + value_at, values, n * vs);
            cl_mem parent = upload(before, total);
            const cl_buffer_region key_region = { key_at, key_len }, value_region = { value_at, value_len };
            cl_int err;
            cl_mem key_buffer = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &key_region, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            cl_mem value_buffer = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &value_region, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            cl_event done = NULL;
            clradix_status status = CLRADIX_ERROR_INVALID_ARGUMENT;
            switch (cases[c].call.kind) {
            case SORT_KEYS:
                status = clradix_sort_keys(dev.sorter, dev.queue, cases[c].type, key_buffer, n, NULL, 0, NULL, &done);
                break;
            case SORT_PAIRS:
                status = clradix_sort_pairs(dev.sorter, dev.queue, cases[c].type, key_buffer, value_buffer, vs, n,
                                            NULL, 0, NULL, &done);
                break;
            case SORT_ARGSORT:
                status = clradix_argsort(dev.sorter, dev.queue, cases[c].type, key_buffer, value_buffer, vs, n, NULL,
                                         0, NULL, &done);
                break;
            }
            ck_assert_int_eq(status, CLRADIX_SUCCESS);
            ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
            download(parent, after, total);

            size_t *perm = oracle_order(cases[c].type, keys, n, NULL);
            char msg[256] = "";
            if (cases[c].call.kind == SORT_ARGSORT) {
                ck_assert_mem_eq(after + key_at, keys, n * kb);
                for (size_t i = 0; i < n; ++i)
                    ck_assert_uint_eq(((const uint32_t *)(after + value_at))[i], perm[i]);
            } else {
                ck_assert_msg(!check_sorted(cases[c].type, keys, after + key_at, values, after + value_at, vs, n, perm,
                                            msg, sizeof msg),
                              "case %zu n=%zu: %s", c, n, msg);
            }
            /* Everything else, before, between and after the sorted elements, is untouched. */
            for (size_t i = 0; i < total; ++i) {
                const int sorted_key = i >= key_at && i < key_at + n * kb;
                const int sorted_value = vs && i >= value_at && i < value_at + n * vs;
                if (!sorted_key && !sorted_value)
                    ck_assert_msg(after[i] == before[i], "case %zu n=%zu: byte %zu of the parent changed", c, n, i);
            }
            free(perm);
            clReleaseMemObject(key_buffer);
            clReleaseMemObject(value_buffer);
            clReleaseMemObject(parent);
            free(before);
            free(after);
            free(keys);
            free(values);
        }
}
END_TEST

/* Sorter creation: explicit context and device, mismatches, tuning overrides, build failures. */
START_TEST(test_sorter_create)
{
    clradix_sorter *s = (clradix_sorter *)0x1;
    ck_assert_int_eq(clradix_sorter_create(dev.context, NULL, &s), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sorter_create(NULL, dev.device, &s), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(s, (clradix_sorter *)0x1);

    /* The caller's context and device. */
    ck_assert_int_eq(clradix_sorter_create(dev.context, dev.device, &s), CLRADIX_SUCCESS);
    ck_assert_ptr_eq(clradix_sorter_context(s), dev.context);
    ck_assert_ptr_eq(clradix_sorter_device(s), dev.device);
    uint32_t keys[5] = { 5, 3, 9, 1, 3 };
    const uint32_t sorted[5] = { 1, 3, 3, 5, 9 };
    ck_assert_int_eq(clradix_sort_keys_host(s, dev.queue, CLRADIX_U32, keys, 5, NULL), CLRADIX_SUCCESS);
    ck_assert_mem_eq(keys, sorted, sizeof sorted);
    clradix_sorter_release(s);
    clradix_sorter_release(NULL);

    /* Bad tuning: through the API and through the environment. */
    s = (clradix_sorter *)0x1;
    const clradix_tuning bad_wg = { .work_group_size = 48 }, bad_bits = { .radix_bits = 9 };
    ck_assert_int_eq(clradix_sorter_create_tuned(NULL, NULL, &bad_wg, &s), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sorter_create_tuned(NULL, NULL, &bad_bits, &s), CLRADIX_ERROR_INVALID_ARGUMENT);
    setenv("CLRADIX_TUNING", "RADIX_BITS=4,NOT_A_PARAMETER=3", 1);
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &s), CLRADIX_ERROR_INVALID_ARGUMENT);
    setenv("CLRADIX_TUNING", "RADIX_BITS=4,WG=2,KPT=3", 1);
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &s), CLRADIX_SUCCESS);
    clradix_tuning used;
    ck_assert_int_eq(clradix_sorter_tuning(s, &used), CLRADIX_SUCCESS);
    ck_assert_uint_eq(used.radix_bits, 4);
    ck_assert_uint_eq(used.work_group_size, 2);
    ck_assert_uint_eq(used.keys_per_item, 3);
    clradix_sorter_release(s);
    unsetenv("CLRADIX_TUNING");

    /* A copy of the kernel folder (CLRADIX_KERNEL_DIR) with a line that does not compile. */
    char dir[] = "/tmp/clradix-broken-XXXXXX", path[512];
    make_broken_kernel_dir(dir);
    setenv("CLRADIX_KERNEL_DIR", dir, 1);
    s = (clradix_sorter *)0x1;
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &s), CLRADIX_ERROR_BUILD_FAILED);
    ck_assert_ptr_eq(s, (clradix_sorter *)0x1);
    ck_assert_ptr_nonnull(strstr(clradix_build_log(NULL), "error"));
    unsetenv("CLRADIX_KERNEL_DIR");

    /* A folder without the sources. */
    snprintf(path, sizeof path, "%s/scatter.cl", dir);
    remove(path);
    setenv("CLRADIX_KERNEL_DIR", dir, 1);
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &s), CLRADIX_ERROR_BUILD_FAILED);
    ck_assert_ptr_nonnull(strstr(clradix_build_log(NULL), "scatter.cl"));
    unsetenv("CLRADIX_KERNEL_DIR");

    remove_folder(dir);
}
END_TEST

/* --- Several host threads on one sorter --------------------------------------------------- */

typedef struct worker {
    int index, sorts, failures;
    cl_command_queue shared;  /* the one queue of every thread, or NULL: a queue of its own */
    char msg[256];
} worker;

/* Sorts of every call and a few types and sizes, on a queue of its own or the shared one
   (which the host-array calls then get too). */
static void *sort_worker(void *arg)
{
    worker *w = arg;
    test_device own = dev;  /* shared sorter and context */
    own.queue = w->shared ? w->shared : clCreateCommandQueue(dev.context, dev.device, 0, NULL);
    own.host_queue = w->shared;
    static const sort_call calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 },
                                       { API_DEVICE, SORT_PAIRS, 8 }, { API_HOST, SORT_ARGSORT, 4 },
                                       { API_HOST, SORT_KEYS, 0 } };
    static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_F64, CLRADIX_I32 };
    uint64_t state = (uint64_t)w->index * 7919;
    for (int i = 0; i < w->sorts && !w->failures; ++i) {
        const size_t n = 1 + rng_next(&state) % 100000;  /* either side of the one-launch limit */
        w->failures += sort_case(&own, &calls[i % 5], types[i % 3], (dist)(i % DIST_COUNT), n, NULL,
                                 (uint64_t)w->index * 1000 + i, w->msg, sizeof w->msg);
    }
    if (!w->shared)
        clReleaseCommandQueue(own.queue);
    return NULL;
}

/* 2 and 4 threads sharing one sorter, 100 checked sorts each (a repeat run: 15), each
   thread on a queue of its own; then 3 threads that share the caller's queue as well (40,
   a repeat run 20). */
START_TEST(test_threads)
{
    const int full = test_full_scope(), threads = _i == 0 ? 2 : _i == 1 ? 4 : 3;
    const int sorts = _i == 2 ? (full ? 40 : 20) : full ? 100 : 15;
    pthread_t ids[4];
    worker workers[4] = { { 0 } };
    for (int i = 0; i < threads; ++i) {
        workers[i].index = i;
        workers[i].sorts = sorts;
        workers[i].shared = _i == 2 ? dev.queue : NULL;
        ck_assert_int_eq(pthread_create(&ids[i], NULL, sort_worker, &workers[i]), 0);
    }
    for (int i = 0; i < threads; ++i) {
        pthread_join(ids[i], NULL);
        ck_assert_msg(!workers[i].failures, "thread %d of %d: %s", i, threads, workers[i].msg);
    }
    printf("threads: %d x %d sorts checked, %s\n", threads, sorts,
           _i == 2 ? "one queue shared by all" : "a queue each");
}
END_TEST

/* An out-of-order queue: the sorter chains its own commands; two sorts of one buffer in a
   row, the second told to wait for the first. */
START_TEST(test_out_of_order_queue)
{
    cl_command_queue_properties supported = 0;
    ck_assert_int_eq(clGetDeviceInfo(dev.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL),
                     CL_SUCCESS);
    if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {  /* rusticl 22.3 */
        printf("out-of-order queue: the device has none, not tested\n");
        return;
    }
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(dev.context, dev.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    static const size_t sizes[] = { 700, 70000, 300000 };
    for (int z = 0; z < 3; ++z) {
        const size_t n = sizes[z];
        uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 17 + z), *out = malloc(n * 4);
        cl_mem buffer = upload(keys, n * 4), values = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, n * 4, NULL, &err);
        cl_event first = NULL, second = NULL;
        const clradix_options descending = { 0, 0, 1 };
        ck_assert_int_eq(clradix_sort_keys(dev.sorter, queue, CLRADIX_U32, buffer, n, &descending, 0, NULL, &first),
                         CLRADIX_SUCCESS);
        ck_assert_int_eq(clradix_argsort(dev.sorter, queue, CLRADIX_U32, buffer, values, 4, n, NULL, 1, &first,
                                         &second),
                         CLRADIX_SUCCESS);
        ck_assert_int_eq(clWaitForEvents(1, &second), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, n * 4, out, 0, NULL, NULL), CL_SUCCESS);
        size_t *perm = oracle_order(CLRADIX_U32, keys, n, &descending);  /* the first sort */
        char msg[256];
        ck_assert_msg(!check_sorted(CLRADIX_U32, keys, out, NULL, NULL, 0, n, perm, msg, sizeof msg), "%s", msg);
        free(perm);
        uint32_t *indices = malloc(n * 4);
        ck_assert_int_eq(clEnqueueReadBuffer(queue, values, CL_TRUE, 0, n * 4, indices, 0, NULL, NULL), CL_SUCCESS);
        /* The second: the stable ascending order of the first's result, as indices. */
        unsigned char *seen = calloc(n, 1);
        for (size_t i = 0; i < n; ++i) {
            ck_assert_uint_lt(indices[i], n);
            ck_assert(!seen[indices[i]]);
            seen[indices[i]] = 1;
            if (i > 0) {
                ck_assert_uint_le(out[indices[i - 1]], out[indices[i]]);
                if (out[indices[i - 1]] == out[indices[i]])
                    ck_assert_uint_lt(indices[i - 1], indices[i]);
            }
        }
        free(seen);
        clReleaseEvent(first);
        clReleaseEvent(second);
        clReleaseMemObject(buffer);
        clReleaseMemObject(values);
        free(keys);
        free(out);
        free(indices);
    }
    clReleaseCommandQueue(queue);
}
END_TEST

static long resident_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* 1000 sorters created and released (a repeat run: 200), some of them sorting: the process
   does not grow beyond what POCL 3.1 itself keeps per program build, which grows with the
   program: measured without clradix (a loop of clCreateProgramWithBinary, clBuildProgram,
   every kernel created and released, on the binary this test caches), 7.0 MiB over 900
   builds of 1.12's kernels and 8.9 MiB of 1.13's; valgrind finds no leak of clradix's. The
   bound leaves 3 MiB above that: a sorter leaked costs about 1.3 MiB, one in ten of them
   over 100 MiB here. */
START_TEST(test_create_release_cycles)
{
    /* With the program cache, as a process that makes many sorters would want: on POCL,
       where it is off by default, a sorter built from POCL's own cache takes ~0.1 s. The
       LSD passes alone: one program to compile whole for the cache. */
    char dir[] = "/tmp/clradix-cycles-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CLRADIX_CACHE_DIR", dir, 1);
    setenv("CLRADIX_CACHE", "1", 1);
    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);
    long settled = 0;
    const int cycles = test_full_scope() ? 1000 : 200;
    for (int cycle = 0; cycle < cycles; ++cycle) {
        clradix_sorter *s;
        ck_assert_int_eq(clradix_sorter_create(dev.context, dev.device, &s), CLRADIX_SUCCESS);
        if (cycle % 100 == 0) {
            uint32_t keys[3000], input[3000];
            for (int i = 0; i < 3000; ++i)
                input[i] = keys[i] = (uint32_t)(i * 2654435761u);
            ck_assert_int_eq(clradix_sort_keys_host(s, dev.queue, CLRADIX_U32, keys, 3000, NULL), CLRADIX_SUCCESS);
            size_t *perm = oracle_order(CLRADIX_U32, input, 3000, NULL);
            char msg[256];
            ck_assert_msg(!check_sorted(CLRADIX_U32, input, keys, NULL, NULL, 0, 3000, perm, msg, sizeof msg), "%s",
                          msg);
            free(perm);
        }
        clradix_sorter_release(s);
        if (cycle == 99)
            settled = resident_kib();
    }
    const long grown = resident_kib() - settled;
    unsetenv("CLRADIX_CACHE");
    unsetenv("CLRADIX_CACHE_DIR");
    unsetenv("CLRADIX_TUNING");
    remove_folder(dir);
    printf("lifecycle: %d sorters created and released; resident memory grew %ld KiB after the first 100\n", cycles,
           grown);
    ck_assert_msg(grown < 12 * 1024, "resident memory grew %ld KiB over %d create/release cycles", grown, cycles - 100);
}
END_TEST

/* Releasing the sorter while the event of its sort is pending: the sort still completes. */
START_TEST(test_release_while_pending)
{
    const size_t n = 200000;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 23);
    cl_mem buffer = upload(keys, n * 4);
    cl_int err;
    cl_event gate = clCreateUserEvent(dev.context, &err), done = NULL;
    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, n, NULL, 1, &gate, &done),
                     CLRADIX_SUCCESS);
    clradix_sorter_release(dev.sorter);
    dev.sorter = NULL;
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    expect_sorted_u32(buffer, keys, n);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(buffer);
    free(keys);
}
END_TEST

/* --- The program cache on disk --------------------------------------------------------------- */

/* Opens a sorter, sorts and checks a few keys of type with it, and closes it. */
static void sort_with_new_sorter(clradix_key_type type)
{
    test_device t;
    clradix_status status = test_device_open(&t, NULL);
    ck_assert_msg(status == CLRADIX_SUCCESS, "%s", clradix_status_string(status));
    char msg[256];
    const sort_call call = { API_HOST, SORT_KEYS, 0 };
    ck_assert_msg(!sort_case(&t, &call, type, DIST_RANDOM, 70001, NULL, 5, msg, sizeof msg), "%s", msg);
    test_device_close(&t);
}

/* The cache files in dir (up to 8), and how many. */
static int cache_files(const char *dir, char names[8][512], ino_t inodes[8])
{
    int count = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".bin") && count < 8) {
            struct stat st;
            snprintf(names[count], 512, "%s/%s", dir, e->d_name);
            ck_assert_int_eq(stat(names[count], &st), 0);
            inodes[count++] = st.st_ino;
        }
    }
    if (d)
        closedir(d);
    return count;
}

static ino_t inode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* Replaces the entry at path with bytes, as a new file (a new inode). */
static void rewrite_entry(const char *path, const void *bytes, size_t size)
{
    remove(path);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
    fclose(f);
}

static void *read_entry(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = malloc(*size);
    ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
    fclose(f);
    return bytes;
}

/* A hit reads the entry and leaves it alone; anything wrong with an entry means a compile
   from source (seen as the entry written anew) and still a correct sort. */
START_TEST(test_program_cache)
{
    char dir[] = "/tmp/clradix-cache-XXXXXX", names[8][512];
    ino_t inodes[8];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CLRADIX_CACHE_DIR", dir, 1);
    setenv("CLRADIX_CACHE", "1", 1);  /* also on POCL, where it is off by default */
    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);  /* one program per variant: the LSD passes alone */

    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_int_eq(cache_files(dir, names, inodes), 1);  /* the 32-bit keys-only program */
    char entry[512];
    snprintf(entry, sizeof entry, "%s", names[0]);
    const ino_t first = inodes[0];

    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_int_eq(cache_files(dir, names, inodes), 1);
    ck_assert_uint_eq(inode_of(entry), first);  /* a hit: not written again */

    size_t size;
    unsigned char *good = read_entry(entry, &size);
    ck_assert_uint_gt(size, 64);

    /* A flipped byte in the binary. */
    unsigned char *bad = malloc(size);
    memcpy(bad, good, size);
    bad[size / 2] ^= 0x5A;
    rewrite_entry(entry, bad, size);
    ino_t before = inode_of(entry);
    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_uint_ne(inode_of(entry), before);

    /* Truncated. */
    rewrite_entry(entry, good, size / 2);
    before = inode_of(entry);
    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_uint_ne(inode_of(entry), before);

    /* Garbage, and an empty file. */
    memset(bad, 0xA5, size);
    rewrite_entry(entry, bad, size);
    before = inode_of(entry);
    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_uint_ne(inode_of(entry), before);
    rewrite_entry(entry, bad, 0);
    before = inode_of(entry);
    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_uint_ne(inode_of(entry), before);

    /* Foreign: a sound entry of another program (64-bit keys) under this one's name. */
    sort_with_new_sorter(CLRADIX_U64);
    ck_assert_int_eq(cache_files(dir, names, inodes), 2);
    const char *other = strcmp(names[0], entry) ? names[0] : names[1];
    size_t other_size;
    unsigned char *foreign = read_entry(other, &other_size);
    rewrite_entry(entry, foreign, other_size);
    before = inode_of(entry);
    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_uint_ne(inode_of(entry), before);
    ck_assert_int_eq(cache_files(dir, names, inodes), 2);  /* no stray temporary files */

    free(good);
    free(bad);
    free(foreign);
    remove_folder(dir);

    /* CLRADIX_CACHE=0: nothing written. */
    char off_dir[] = "/tmp/clradix-cache-off-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(off_dir));
    setenv("CLRADIX_CACHE_DIR", off_dir, 1);
    setenv("CLRADIX_CACHE", "0", 1);
    sort_with_new_sorter(CLRADIX_U32);
    ck_assert_int_eq(cache_files(off_dir, names, inodes), 0);
    unsetenv("CLRADIX_CACHE");
    unsetenv("CLRADIX_CACHE_DIR");
    unsetenv("CLRADIX_TUNING");
    remove_folder(off_dir);
}
END_TEST

/* Processes filling an empty cache at once each end with a sound entry and a correct sort.
   This test makes no OpenCL object before it forks. */
START_TEST(test_program_cache_processes)
{
    char dir[] = "/tmp/clradix-cache-race-XXXXXX", names[8][512];
    ino_t inodes[8];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CLRADIX_CACHE_DIR", dir, 1);
    setenv("CLRADIX_CACHE", "1", 1);
    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);  /* one program per variant: the LSD passes alone */
    enum { PROCESSES = 3 };
    pid_t children[PROCESSES];
    for (int i = 0; i < PROCESSES; ++i) {
        fflush(NULL);
        children[i] = fork();
        ck_assert_int_ge(children[i], 0);
        if (children[i] == 0) {
            test_device t;
            char msg[256];
            const sort_call call = { API_HOST, SORT_KEYS, 0 };
            int failed = test_device_open(&t, NULL) != CLRADIX_SUCCESS
                || sort_case(&t, &call, CLRADIX_U32, DIST_RANDOM, 5000, NULL, (uint64_t)i, msg, sizeof msg);
            _exit(failed);
        }
    }
    for (int i = 0; i < PROCESSES; ++i) {
        int status = 0;
        ck_assert_int_eq(waitpid(children[i], &status, 0), children[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d failed", i);
    }
    ck_assert_int_eq(cache_files(dir, names, inodes), 1);
    unsetenv("CLRADIX_CACHE_DIR");
    unsetenv("CLRADIX_CACHE");
    unsetenv("CLRADIX_TUNING");
    remove_folder(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calls");
    TCase *tc = tcase_create("calls");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 300);
    /* POCL's basic device hangs in clSetUserEventStatus when a command waits on the
       event (pocl/pocl#1177), and deadlocks inside itself when threads enqueue on one
       queue at once (a command that becomes ready is run while the event that freed it is
       still locked, in pocl_update_event_running), so those tests run on other devices. */
    const char *pocl_devices = getenv("POCL_DEVICES");
    const int pocl_basic = pocl_devices && !strcmp(pocl_devices, "basic");
    if (!pocl_basic) {
        tcase_add_test(tc, test_event_user_gate);
        tcase_add_test(tc, test_event_empty_sort);
        tcase_add_test(tc, test_release_while_pending);
    } else {
        fprintf(stderr, "test_calls: user-event and shared-queue tests not run on POCL basic (its own deadlocks)\n");
    }
    tcase_add_test(tc, test_event_other_queue);
    tcase_add_test(tc, test_rejected_calls);
    tcase_add_test(tc, test_sub_buffers);
    tcase_add_test(tc, test_sorter_create);
    tcase_add_loop_test(tc, test_threads, 0, pocl_basic ? 2 : 3);  /* the third: one queue */
    tcase_add_test(tc, test_out_of_order_queue);
    tcase_add_test(tc, test_create_release_cycles);
    suite_add_tcase(s, tc);

    TCase *cache = tcase_create("cache");  /* no fixture: the tests make their own sorters */
    tcase_set_timeout(cache, 300);
    tcase_add_test(cache, test_program_cache);
    tcase_add_test(cache, test_program_cache_processes);
    suite_add_tcase(s, cache);
    return run_device_suite(s, "test_calls");
}
