/*
 * A bug of POCL 3.1 (Debian 12's pocl-opencl-icd, both its pthread and basic devices),
 * shown with plain OpenCL, no clradix: in a loop whose body has barriers, the stores of an
 * unrolled loop that each store under a condition (the move of a tile's keys, then its
 * values, through local memory to their places) come out wrong: a value lands where a key
 * should have been read back first, and keys go missing.
 * oclgrind, Intel's CPU runtime and Mesa's llvmpipe run the same kernel right.
 *
 *     build/tests/pocl-unroll-repro [DEVICE]
 *
 * DEVICE is a substring of "platform device" (default: Portable Computing Language). The
 * kernel, a one-work-group sort of 200 keys with values by one 4-bit digit (64 work-items,
 * 4 keys each in private memory, counted in packed counters of their own: clradix's
 * rank_digits in small), runs twice: with the stores under their condition, and storing
 * every place (a place past the keys to its own, which no key takes: what clradix does,
 * cl/common.cl). On POCL 3.1 it prints
 *     stores under a condition: 37 keys out of order, keys lost
 *     every place stored: right
 * and exits 1 ("reproduced"); a driver that runs both right exits 0.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <string.h>

#include "repro_device.h"

static const char *source =
    "/* 64 work-items sort n <= 256 keys with values, 4 keys each held in private memory, by\n"
    "   4-bit digits: per digit, each work-item counts its keys in 16-bit counters of its own,\n"
    "   two to a word; one scan of all counters (each work-item sums a segment, one scan of\n"
    "   the sums, each pushes its prefix back) gives every key its place; the keys, then the\n"
    "   values, go through local memory to their places and back. */\n"
    "#define WG 64\n"
    "#define KPT 4\n"
    "#define RADIX 16\n"
    "#define LANES (RADIX / 2)\n"
    "#define AT(i) ((i) + (i) / LANES * 4)\n"
    "/* Which places a move stores: those of the keys (the bug), or every one (UNCONDITIONAL: a\n"
    "   place past the keys keeps its own, which no key takes). */\n"
    "#ifdef UNCONDITIONAL\n"
    "#define STORE(k) 1\n"
    "#else\n"
    "#define STORE(k) (digit[k] < RADIX)\n"
    "#endif\n"
    "\n"
    "typedef struct digit_spec {\n"
    "    uint flip, shift, mask;\n"
    "} digit_spec;\n"
    "\n"
    "uint digit_of(uint key, digit_spec spec)\n"
    "{\n"
    "    return ((key ^ spec.flip) >> spec.shift) & spec.mask;\n"
    "}\n"
    "\n"
    "typedef struct scratch {\n"
    "    union {\n"
    "        uint4 aligned;\n"
    "        uint counters[AT(LANES * WG)];\n"
    "        uint keys[WG * KPT];\n"
    "        uint values[WG * KPT];\n"
    "    } shared;\n"
    "    uint sums[WG + WG / 8 + 1], run_begin[RADIX + 1];\n"
    "} scratch;\n"
    "\n"
    "uint group_prefix(uint value, __local uint *sums, uint *total)\n"
    "{\n"
    "    const uint lid = get_local_id(0);\n"
    "    sums[lid] = value;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < WG / 8) {\n"
    "        uint sum = 0;\n"
    "        for (uint i = lid * 8; i < (lid + 1) * 8; ++i) {\n"
    "            const uint v = sums[i];\n"
    "            sums[i] = sum;\n"
    "            sum += v;\n"
    "        }\n"
    "        sums[WG + lid] = sum;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid == 0) {\n"
    "        uint sum = 0;\n"
    "        for (uint r = WG; r < WG + WG / 8; ++r) {\n"
    "            const uint v = sums[r];\n"
    "            sums[r] = sum;\n"
    "            sum += v;\n"
    "        }\n"
    "        sums[WG + WG / 8] = sum;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    *total = sums[WG + WG / 8];\n"
    "    return sums[lid] + sums[WG + lid / 8];\n"
    "}\n"
    "\n"
    "void rank_digits(const uint digit[KPT], uint place[KPT], __local scratch *s)\n"
    "{\n"
    "    const uint lid = get_local_id(0);\n"
    "    __local uint *counters = s->shared.counters;\n"
    "    for (uint k = 0; k < KPT; ++k)\n"
    "        place[k] = lid * KPT + k;\n"
    "#pragma unroll\n"
    "    for (uint l = 0; l < LANES; ++l)\n"
    "        counters[AT(l * WG + lid)] = 0;\n"
    "#pragma unroll\n"
    "    for (uint k = 0; k < KPT; ++k)\n"
    "        if (digit[k] < RADIX) {\n"
    "            const uint at = AT((digit[k] % LANES) * WG + lid), high = digit[k] / LANES * 16;\n"
    "            const uint word = counters[at];\n"
    "            place[k] = (word >> high) & 0xFFFF;\n"
    "            counters[at] = word + (1u << high);\n"
    "        }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    __local uint4 *segment = (__local uint4 *)(counters + AT(lid * LANES));\n"
    "    uint4 sums = 0;\n"
    "#pragma unroll\n"
    "    for (uint q = 0; q < LANES / 4; ++q)\n"
    "        sums += segment[q];\n"
    "    uint total, prefix = group_prefix(sums.x + sums.y + sums.z + sums.w, s->sums, &total);\n"
    "#pragma unroll\n"
    "    for (uint q = 0; q < LANES / 4; ++q) {\n"
    "        const uint4 count = segment[q];\n"
    "        const uint x = count.x, xy = x + count.y, xyz = xy + count.z;\n"
    "        segment[q] = (uint4)(prefix) + (uint4)(0, x, xy, xyz);\n"
    "        prefix += xyz + count.w;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "#pragma unroll\n"
    "    for (uint k = 0; k < KPT; ++k)\n"
    "        if (digit[k] < RADIX) {\n"
    "            const uint high = digit[k] / LANES * 16;\n"
    "            const uint word = counters[AT((digit[k] % LANES) * WG + lid)];\n"
    "            place[k] += ((word >> high) & 0xFFFF) + (high ? total & 0xFFFF : 0);\n"
    "        }\n"
    "    for (uint d = lid; d < RADIX; d += WG) {\n"
    "        const uint high = d / LANES * 16;\n"
    "        s->run_begin[d] = ((counters[AT(d % LANES * WG)] >> high) & 0xFFFF) + (high ? total & 0xFFFF : 0);\n"
    "    }\n"
    "}\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void sort(__global uint *keys, __global uint *values, uint n, uint begin_bit, uint end_bit, uint flip)\n"
    "{\n"
    "    __local scratch s;\n"
    "    const uint first = get_local_id(0) * KPT;\n"
    "    uint key[KPT], value[KPT], digit[KPT], place[KPT];\n"
    "    for (uint k = 0; k < KPT; ++k) {\n"
    "        key[k] = first + k < n ? keys[first + k] : 0;\n"
    "        value[k] = first + k < n ? values[first + k] : 0;\n"
    "    }\n"
    "    for (uint shift = begin_bit; shift < end_bit; shift += 4) {\n"
    "        const digit_spec spec = { flip, shift, RADIX - 1 };\n"
    "#pragma unroll\n"
    "        for (uint k = 0; k < KPT; ++k)\n"
    "            digit[k] = first + k < n ? digit_of(key[k], spec) : RADIX;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);  /* the pass before has read its values back */\n"
    "        rank_digits(digit, place, &s);\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);  /* the counters are read */\n"
    "#pragma unroll\n"
    "        for (uint k = 0; k < KPT; ++k)\n"
    "            if (STORE(k))\n"
    "                s.shared.keys[place[k]] = key[k];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);  /* the keys are in order */\n"
    "#pragma unroll\n"
    "        for (uint k = 0; k < KPT; ++k)\n"
    "            if (first + k < n)\n"
    "                key[k] = s.shared.keys[first + k];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);  /* the keys are read back: the values take the words */\n"
    "#pragma unroll\n"
    "        for (uint k = 0; k < KPT; ++k)\n"
    "            if (STORE(k))\n"
    "                s.shared.values[place[k]] = value[k];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);  /* the values are in order */\n"
    "#pragma unroll\n"
    "        for (uint k = 0; k < KPT; ++k)\n"
    "            if (first + k < n)\n"
    "                value[k] = s.shared.values[first + k];\n"
    "    }\n"
    "    for (uint k = 0; k < KPT; ++k)\n"
    "        if (first + k < n) {\n"
    "            keys[first + k] = key[k];\n"
    "            values[first + k] = value[k];\n"
    "        }\n"
    "}\n";

enum { N = 200 };

/* Sorts N keys with values by their bits [0, 4) with the kernel built with options; 0 when
   the result is right, else fills what with what was wrong. -1 on an OpenCL error. */
static int run(cl_device_id device, const char *options, char *what, size_t size)
{
    cl_uint keys[256], values[256], in[256];
    cl_uint x = 12345;
    for (cl_uint i = 0; i < N; ++i) {
        x = x * 1103515245u + 12345u;
        in[i] = keys[i] = x >> 8;
        values[i] = i;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    err = clBuildProgram(program, 1, &device, options, NULL, NULL);
    cl_kernel kernel = clCreateKernel(program, "sort", &err);
    cl_mem key_buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys, &err);
    cl_mem value_buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof values, values,
                                         &err);
    const cl_uint n = N, begin_bit = 0, end_bit = 4, flip = 0;
    clSetKernelArg(kernel, 0, sizeof key_buffer, &key_buffer);
    clSetKernelArg(kernel, 1, sizeof value_buffer, &value_buffer);
    clSetKernelArg(kernel, 2, sizeof n, &n);
    clSetKernelArg(kernel, 3, sizeof begin_bit, &begin_bit);
    clSetKernelArg(kernel, 4, sizeof end_bit, &end_bit);
    clSetKernelArg(kernel, 5, sizeof flip, &flip);
    const size_t group = 64;
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &group, &group, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, key_buffer, CL_TRUE, 0, sizeof keys, keys, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, value_buffer, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL);
    clReleaseMemObject(key_buffer);
    clReleaseMemObject(value_buffer);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    if (err != CL_SUCCESS) {
        snprintf(what, size, "OpenCL error %d", err);
        return -1;
    }
    /* Stable by the digit, and each key still with its value. */
    int out_of_order = 0, lost = 0;
    for (cl_uint i = 0; i < N; ++i) {
        lost += values[i] >= N || keys[i] != in[values[i]];
        if (i > 0)
            out_of_order += (keys[i - 1] & 15) > (keys[i] & 15)
                         || ((keys[i - 1] & 15) == (keys[i] & 15) && values[i - 1] > values[i]);
    }
    snprintf(what, size, "%d keys out of order, %s", out_of_order, lost ? "keys lost" : "keys kept");
    return out_of_order || lost;
}

int main(int argc, char **argv)
{
    const char *wanted = argc > 1 ? argv[1] : "Portable Computing Language";
    cl_device_id device;
    if (!find_device(wanted, &device)) {
        printf("no OpenCL device matches \"%s\"\n", wanted);
        return 77;
    }
    char what[128];
    const int conditional = run(device, "", what, sizeof what);
    printf("stores under a condition: %s\n", conditional ? what : "right");
    const int every = run(device, "-D UNCONDITIONAL", what, sizeof what);
    printf("every place stored: %s\n", every ? what : "right");
    if (conditional < 0 || every < 0)
        return 2;
    const int reproduced = conditional && !every;
    printf("%s\n", reproduced ? "reproduced" : "not reproduced");
    return reproduced;
}
