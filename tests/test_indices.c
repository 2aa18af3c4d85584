/*
 * The kernels' index arithmetic at the 32-bit edges, without the 4 to 16 GiB of keys that
 * reach it (test_edges.c does, opt-in): the library's own OpenCL C (cl/common.cl,
 * cl/topk.cl, cl/scan.cl, cl/segments.cl, read from the source tree) built with small test
 * kernels that call its helpers at indices near 2^32:
 * - topk_put_index writes 8-byte index i >= 2^31 at word 2i, where a 32-bit offset wraps
 *   to 2i - 2^32 (its pointer is shifted so that the right words fall in a small buffer);
 * - loop_start and loop_next, which every strided loop of the top-k kernels and seg_copy
 *   steps by, stop at an end of 2^32 - 1 after visiting each index once, for every
 *   work-item of a group, where stepping by the group would wrap and go on;
 * - LIST_AT puts slot s of job list l at l * cap + s jobs, past 2^32.
 * On POCL pthread, whose kernels address the host's flat 64-bit memory, so that a shifted
 * pointer is only an address.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The programs' compile options, as src/program.c builds a CPU variant (any shape does:
   the helpers do not depend on it). */
static const char options[] = "-cl-std=CL1.2 -D KEY_BITS=32 -D VALUE_SIZE=0 -D RADIX_BITS=8 -D WG=1 -D KPT=8"
                              " -D RANK_BITS=8 -D HIST_COPIES=1 -D FUSED=0 -D MAX_GROUPS=2 -D SMALL_N=1024"
                              " -D SCAN_WG=64 -D TINY_N=16";

static const char test_kernels[] =
    "#ifdef TOPK_RADIX\n"  /* with topk.cl */
    "__kernel void test_put_index(__global uint *window, uint i, uint position)\n"
    "{\n"
    "    topk_put_index(window - 2 * ((size_t)i - 4), 2, i, position);  /* index i at window[8], [9] */\n"
    "}\n"
    "__kernel void test_loops(uint first, uint last, uint step, __global uint *visits, __global uint *sums)\n"
    "{\n"
    "    const uint lid = get_global_id(0);\n"
    "    uint count = 0, sum = 0;\n"
    "    for (uint i = loop_start(first, lid, last); i < last && count < 1000; i = loop_next(i, step, last)) {\n"
    "        ++count;\n"
    "        sum += i - first;\n"
    "    }\n"
    "    visits[lid] = count;\n"
    "    sums[lid] = sum;\n"
    "}\n"
    "#endif\n"
    "#ifdef LIST_AT\n"  /* with segments.cl */
    "__kernel void test_list_at(__global seg_job *jobs, uint cap, uint list, uint slot, __global ulong *offset)\n"
    "{\n"
    "    offset[0] = (ulong)(LIST_AT(list, slot) - jobs);\n"
    "}\n"
    "#endif\n";

static char *read_source(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CLRADIX_SOURCE_CL_DIR, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc((size_t)size + 1, 1);
    ck_assert(text && fread(text, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    return text;
}

/* The library's sources `names` (NULL-ended) with the test kernels, built. */
static cl_program build(const char *const *names)
{
    const char *texts[8];
    int count = 0;
    for (; names[count]; ++count)
        texts[count] = read_source(names[count]);
    texts[count] = test_kernels;
    cl_int err;
    cl_program program = clCreateProgramWithSource(dev.context, (cl_uint)count + 1, texts, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    err = clBuildProgram(program, 1, &dev.device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[16384];
        clGetProgramBuildInfo(program, dev.device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        ck_abort_msg("build: %d\n%s", err, log);
    }
    for (int i = 0; i < count; ++i)
        free((void *)texts[i]);
    return program;
}

static cl_mem buffer(size_t bytes, const void *init)
{
    cl_int err;
    cl_mem b = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)init, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return b;
}

static void run(cl_kernel kernel, size_t items)
{
    ck_assert_int_eq(clEnqueueNDRangeKernel(dev.queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(dev.queue), CL_SUCCESS);
}

static void setup(void) { open_dev(NULL); }

START_TEST(test_topk_helpers)
{
    static const char *const names[] = { "common.cl", "topk.cl", NULL };
    cl_program program = build(names);
    cl_int err;

    /* Index i = 2^31 + 5 of 8 bytes: words 2i and 2i + 1 past the buffer's start. */
    cl_kernel put = clCreateKernel(program, "test_put_index", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint32_t window[16];
    for (int w = 0; w < 16; ++w)
        window[w] = 0xAAAAAAAAu;
    cl_mem window_buffer = buffer(sizeof window, window);
    const cl_uint i = 0x80000005u, position = 0x12345678u;
    ck_assert_int_eq(clSetKernelArg(put, 0, sizeof window_buffer, &window_buffer) | clSetKernelArg(put, 1, sizeof i, &i)
                         | clSetKernelArg(put, 2, sizeof position, &position),
                     CL_SUCCESS);
    run(put, 1);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, window_buffer, CL_TRUE, 0, sizeof window, window, 0, NULL, NULL),
                     CL_SUCCESS);
    uint64_t index;
    memcpy(&index, &window[8], sizeof index);  /* the device's byte order is the host's here */
    ck_assert_msg(index == position, "index 2^31 + 5 reads %llx", (unsigned long long)index);
    for (int w = 0; w < 16; ++w)
        ck_assert_msg(w / 2 == 4 || window[w] == 0xAAAAAAAAu, "word %d of the window was written", w);

    /* Strided loops of 64 work-items that end at 2^32 - 1, from 2^32 - 200 and 2^32 - 2. */
    cl_kernel loops = clCreateKernel(program, "test_loops", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    enum { ITEMS = 64 };
    uint32_t visits[ITEMS], sums[ITEMS];
    cl_mem visits_buffer = buffer(sizeof visits, visits), sums_buffer = buffer(sizeof sums, sums);
    static const cl_uint firsts[] = { 0xFFFFFFFFu - 200, 0xFFFFFFFFu - 2, 0xFFFFFFFFu };
    for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; ++f) {
        const cl_uint first = firsts[f], last = 0xFFFFFFFFu, step = ITEMS;
        ck_assert_int_eq(clSetKernelArg(loops, 0, sizeof first, &first) | clSetKernelArg(loops, 1, sizeof last, &last)
                             | clSetKernelArg(loops, 2, sizeof step, &step)
                             | clSetKernelArg(loops, 3, sizeof visits_buffer, &visits_buffer)
                             | clSetKernelArg(loops, 4, sizeof sums_buffer, &sums_buffer),
                         CL_SUCCESS);
        run(loops, ITEMS);
        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, visits_buffer, CL_TRUE, 0, sizeof visits, visits, 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, sums_buffer, CL_TRUE, 0, sizeof sums, sums, 0, NULL, NULL),
                         CL_SUCCESS);
        /* Work-item l visits first + l, first + l + 64, ... below last: each index once. */
        uint64_t total = 0;
        for (cl_uint l = 0; l < ITEMS; ++l) {
            uint32_t expected = 0, sum = 0;
            for (uint64_t t = (uint64_t)first + l; t < last; t += step, ++expected)
                sum += (uint32_t)(t - first);
            ck_assert_msg(visits[l] == expected && sums[l] == sum,
                          "from %u: work-item %u visited %u indices (%u expected)", first, l, visits[l], expected);
            total += visits[l];
        }
        ck_assert_uint_eq(total, last - first);
    }
    clReleaseMemObject(window_buffer);
    clReleaseMemObject(visits_buffer);
    clReleaseMemObject(sums_buffer);
    clReleaseKernel(put);
    clReleaseKernel(loops);
    clReleaseProgram(program);
}
END_TEST

START_TEST(test_job_lists)
{
    static const char *const names[] = { "common.cl", "scan.cl", "segments.cl", NULL };
    cl_program program = build(names);
    cl_int err;
    cl_kernel list_at = clCreateKernel(program, "test_list_at", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint64_t offset = 0;
    const uint32_t job[4] = { 0 };  /* one seg_job: the kernel only computes addresses */
    cl_mem jobs = buffer(sizeof job, job), out = buffer(sizeof offset, &offset);
    /* Slot 7 of list 3 with lists of 2^31 + 1 jobs: job 3 * 2^31 + 10, past 2^32. */
    const cl_uint cap = 0x80000001u, list = 3, slot = 7;
    ck_assert_int_eq(clSetKernelArg(list_at, 0, sizeof jobs, &jobs) | clSetKernelArg(list_at, 1, sizeof cap, &cap)
                         | clSetKernelArg(list_at, 2, sizeof list, &list) | clSetKernelArg(list_at, 3, sizeof slot, &slot)
                         | clSetKernelArg(list_at, 4, sizeof out, &out),
                     CL_SUCCESS);
    run(list_at, 1);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, out, CL_TRUE, 0, sizeof offset, &offset, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_msg(offset == 3ull * cap + slot, "slot 7 of list 3 at job %llu", (unsigned long long)offset);
    clReleaseMemObject(jobs);
    clReleaseMemObject(out);
    clReleaseKernel(list_at);
    clReleaseProgram(program);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("indices");
    TCase *tc = tcase_create("indices");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_topk_helpers);
    tcase_add_test(tc, test_job_lists);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_indices");
}
