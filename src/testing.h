/*
 * Test builds only (CMake builds the library a second time, as clradix_testing, with
 * CLRADIX_TESTING defined; the shipped library has none of this). Every OpenCL call of
 * the library that allocates, enqueues or builds, and every host allocation, goes through
 * a wrapper that counts it and fails the N-th one when told to; and the device's limits
 * can be forced smaller than it reports. Tests use the clradix_testing_* calls.
 */
#ifndef CLRADIX_TESTING_H
#define CLRADIX_TESTING_H

#include "clradix.h"

#include <stddef.h>

/* The n-th counted call from now on fails, and only it (0: none fails). */
void clradix_testing_fail_at(unsigned long n);
/* Counted calls since the last clradix_testing_fail_at. */
unsigned long clradix_testing_calls(void);
/* Limits that sorters created from now on use instead of the device's (0: the device's). */
void clradix_testing_limits(size_t local_mem, size_t max_work_group, cl_ulong max_alloc, cl_ulong global_mem);

#ifdef CLRADIX_TESTING_WRAP  /* set by internal.h: the library's calls go through the wrappers */
#include <stdlib.h>

void *testing_malloc(size_t size);
void *testing_calloc(size_t count, size_t size);
char *testing_strdup(const char *text);
cl_mem testing_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_command_queue testing_clCreateCommandQueue(cl_context, cl_device_id, cl_command_queue_properties, cl_int *);
cl_context testing_clCreateContext(const cl_context_properties *, cl_uint, const cl_device_id *,
                                   void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *);
cl_program testing_clCreateProgramWithSource(cl_context, cl_uint, const char **, const size_t *, cl_int *);
cl_program testing_clCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id *, const size_t *,
                                             const unsigned char **, cl_int *, cl_int *);
cl_int testing_clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *,
                              void(CL_CALLBACK *)(cl_program, void *), void *);
cl_kernel testing_clCreateKernel(cl_program, const char *, cl_int *);
cl_int testing_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                      const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int testing_clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int testing_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                                   const cl_event *, cl_event *);
void testing_device_limits(size_t *local_mem, size_t *max_wg, cl_ulong *max_alloc, cl_ulong *global_mem);

#define malloc testing_malloc
#define calloc testing_calloc
#define strdup testing_strdup
#define clCreateBuffer testing_clCreateBuffer
#define clCreateCommandQueue testing_clCreateCommandQueue
#define clCreateContext testing_clCreateContext
#define clCreateProgramWithSource testing_clCreateProgramWithSource
#define clCreateProgramWithBinary testing_clCreateProgramWithBinary
#define clBuildProgram testing_clBuildProgram
#define clCreateKernel testing_clCreateKernel
#define clEnqueueNDRangeKernel testing_clEnqueueNDRangeKernel
#define clEnqueueMarkerWithWaitList testing_clEnqueueMarkerWithWaitList
#define clEnqueueReadBuffer testing_clEnqueueReadBuffer
#endif

#endif
