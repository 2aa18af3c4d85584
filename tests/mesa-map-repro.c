/*
 * A bug of Mesa's rusticl (22.3 in Debian 12, RUSTICL_ENABLE=llvmpipe), shown with plain
 * OpenCL, no clradix: threads that each map and unmap a buffer over host memory of their
 * own (CL_MEM_USE_HOST_PTR), on one in-order queue they share, now and then get
 * CL_INVALID_VALUE (-30) from clEnqueueUnmapMemObject for the very pointer the map
 * returned. Every call here is thread-safe by OpenCL's rules.
 *
 *     RUSTICL_ENABLE=llvmpipe build/tests/mesa-map-repro [DEVICE]
 *
 * DEVICE is a substring of "platform device" (default: rusticl). Three threads each run
 * 2000 rounds of: a buffer over a fresh host array, a kernel adding one to it, a blocking
 * map of it, its unmap, a wait. On rusticl 22.3 it prints, within a few hundred rounds,
 *     thread 1, round 86: clEnqueueUnmapMemObject -30
 * and exits 1 ("reproduced"); POCL's pthread device and Intel's CPU runtime run every
 * round (exit 0). clradix's host sorts on rusticl go through copies instead of mapping
 * buffers over the caller's arrays (src/host.c, limits.no_host_maps).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro_device.h"

enum { THREADS = 3, ROUNDS = 2000 };

static cl_context context;
static cl_command_queue shared_queue;
static cl_kernel kernels[THREADS];  /* a kernel object per thread: clSetKernelArg is not thread-safe */
static _Atomic int failures;

static void *rounds(void *arg)
{
    const int id = (int)(size_t)arg;
    unsigned state = 17u * (unsigned)id + 1;
    for (int round = 0; round < ROUNDS && !failures; ++round) {
        state = state * 1103515245u + 12345u;
        const size_t n = 1 + (state >> 8) % 4096;
        cl_uint *host = malloc(n * sizeof *host);
        for (size_t i = 0; i < n; ++i)
            host[i] = (cl_uint)i;
        cl_int err;
        cl_mem buffer = clCreateBuffer(context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, n * sizeof *host, host, &err);
        cl_event added = NULL, unmapped = NULL;
        if (err == CL_SUCCESS)
            err = clSetKernelArg(kernels[id], 0, sizeof buffer, &buffer);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(shared_queue, kernels[id], 1, NULL, &n, NULL, 0, NULL, &added);
        void *mapped = NULL;
        if (err == CL_SUCCESS)
            mapped = clEnqueueMapBuffer(shared_queue, buffer, CL_TRUE, CL_MAP_READ, 0, n * sizeof *host, 1, &added, NULL,
                                        &err);
        if (err == CL_SUCCESS) {
            err = clEnqueueUnmapMemObject(shared_queue, buffer, mapped, 0, NULL, &unmapped);
            if (err != CL_SUCCESS)
                printf("thread %d, round %d: clEnqueueUnmapMemObject %d\n", id, round, err);
        } else {
            printf("thread %d, round %d: OpenCL error %d\n", id, round, err);
        }
        if (unmapped)
            clWaitForEvents(1, &unmapped);
        for (size_t i = 0; i < n && err == CL_SUCCESS; ++i)
            if (host[i] != (cl_uint)i + 1) {
                printf("thread %d, round %d: element %zu wrong\n", id, round, i);
                err = 1;
            }
        failures += err != CL_SUCCESS;
        if (added)
            clReleaseEvent(added);
        if (unmapped)
            clReleaseEvent(unmapped);
        clReleaseMemObject(buffer);
        free(host);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *wanted = argc > 1 ? argv[1] : "rusticl";
    cl_device_id device;
    if (!find_device(wanted, &device)) {
        printf("no OpenCL device matches \"%s\" (rusticl: RUSTICL_ENABLE=llvmpipe)\n", wanted);
        return 77;
    }
    static const char *source = "__kernel void add_one(__global uint *a) { a[get_global_id(0)] += 1; }\n";
    cl_int err;
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    shared_queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS || clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        printf("the kernel did not build\n");
        return 2;
    }
    for (int t = 0; t < THREADS; ++t)
        kernels[t] = clCreateKernel(program, "add_one", &err);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; ++t)
        pthread_create(&threads[t], NULL, rounds, (void *)(size_t)t);
    for (int t = 0; t < THREADS; ++t)
        pthread_join(threads[t], NULL);
    const int reproduced = failures != 0;
    printf("%s\n", reproduced ? "reproduced" : "not reproduced: every round ran");
    for (int t = 0; t < THREADS; ++t)
        clReleaseKernel(kernels[t]);
    clReleaseProgram(program);
    clReleaseCommandQueue(shared_queue);
    clReleaseContext(context);
    return reproduced;
}
