/*
 * A bug of Mesa's llvmpipe (the CPU device of rusticl and of Clover, Mesa 22.3 in Debian 12,
 * RUSTICL_ENABLE=llvmpipe), shown with plain OpenCL, no clradix: every kernel is compiled
 * with a loop limiter, so that once the loops of one work-item have run 65535 iterations in
 * one launch, counted together, every loop ends after its next iteration. OpenCL knows no
 * such limit; the kernel below simply gets wrong results.
 *
 *     RUSTICL_ENABLE=llvmpipe build/tests/mesa-loop-limit-repro [DEVICE]
 *
 * DEVICE is a substring of "platform device" (default: llvmpipe). The kernel runs two loops
 * of 40000 iterations each, then a loop of 100000; on llvmpipe it prints
 *     loops of 40000, 40000 and 100000 iterations ran 40000, 25534 and 1
 * and exits 1 ("reproduced"); a driver that runs every iteration prints them in full and
 * exits 0. clradix measures the limit when it creates a sorter on a Mesa platform (the
 * same loop, src/loops.c) and gives such a device's work-groups shares that stay within it.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro_device.h"

static const char *source =
    "__kernel void loops(__global uint *ran, __global const uint *data, uint first, uint second, uint third)\n"
    "{\n"
    "    uint i = 0, j = 0, k = 0, sum = 0;\n"
    "    for (; i < first; ++i)\n"
    "        sum += data[i & 7];\n"
    "    for (; j < second; ++j)\n"
    "        sum += data[j & 7];\n"
    "    for (; k < third; ++k)\n"
    "        sum += data[k & 7];\n"
    "    ran[0] = i;\n"
    "    ran[1] = j;\n"
    "    ran[2] = k;\n"
    "    ran[3] = sum;\n"
    "}\n";

int main(int argc, char **argv)
{
    const char *wanted = argc > 1 ? argv[1] : "llvmpipe";
    cl_device_id device;
    if (!find_device(wanted, &device)) {
        printf("no OpenCL device matches \"%s\" (llvmpipe: RUSTICL_ENABLE=llvmpipe)\n", wanted);
        return 77;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    cl_kernel kernel = clCreateKernel(program, "loops", &err);
    const cl_uint data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, want[3] = { 40000, 40000, 100000 };
    cl_uint ran[4] = { 0 };
    cl_mem ran_buffer = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof ran, NULL, &err);
    cl_mem data_buffer = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, (void *)data,
                                        &err);
    clSetKernelArg(kernel, 0, sizeof ran_buffer, &ran_buffer);
    clSetKernelArg(kernel, 1, sizeof data_buffer, &data_buffer);
    for (cl_uint a = 0; a < 3; ++a)
        clSetKernelArg(kernel, 2 + a, sizeof want[a], &want[a]);
    const size_t one = 1;
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, ran_buffer, CL_TRUE, 0, sizeof ran, ran, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        printf("OpenCL error %d\n", err);
        return 2;
    }
    printf("loops of %u, %u and %u iterations ran %u, %u and %u\n", want[0], want[1], want[2], ran[0], ran[1], ran[2]);
    const int reproduced = memcmp(ran, want, sizeof want) != 0;
    printf("%s\n", reproduced ? "reproduced: the loops stopped early" : "not reproduced: every iteration ran");
    clReleaseMemObject(ran_buffer);
    clReleaseMemObject(data_buffer);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return reproduced;
}
