/*
 * Test builds only (CMake builds the library a second time, as clradix_testing, with
 * CLRADIX_TESTING defined; the shipped library has none of this). Every OpenCL call of
 * the library that allocates, enqueues or builds, and every host allocation, goes through
 * a wrapper that counts it and fails the N-th one when told to; the device's limits can be
 * forced smaller than it reports, and its traits (work-item dimensions, byte order,
 * profile) changed; builds can be held, buffer releases deferred, and size_t narrowed.
 * Tests use the clradix_testing_* calls.
 */
#ifndef CLRADIX_TESTING_H
#define CLRADIX_TESTING_H

#include "clradix.h"

#include <stddef.h>

/* The n-th counted call from now on fails, and only it (0: none fails). */
void clradix_testing_fail_at(unsigned long n);
/* From now on only calls of this wrapped function are counted (NULL: every call), e.g.
   "clCreateKernel". */
void clradix_testing_count_only(const char *function);
/* Counted calls since the last clradix_testing_fail_at. */
unsigned long clradix_testing_calls(void);
/* Limits that sorters created from now on use instead of the device's (0: the device's). */
void clradix_testing_limits(size_t local_mem, size_t max_work_group, cl_ulong max_alloc, cl_ulong global_mem);

/* What clGetDeviceInfo tells sorters created from now on (zero fields: the truth). */
typedef struct clradix_testing_traits {
    cl_uint work_item_dimensions;  /* more than 3: MAX_WORK_ITEM_SIZES has that many entries */
    int big_endian;                /* CL_DEVICE_ENDIAN_LITTLE is CL_FALSE */
    int embedded;                  /* 1: EMBEDDED_PROFILE, 2: that and cles_khr_int64 */
    int discrete;                  /* CL_DEVICE_HOST_UNIFIED_MEMORY is CL_FALSE */
    unsigned long loop_budget;     /* the sorter plans as if loops stopped after so many iterations
                                      (loops.c), though the device runs them all */
    size_t kernel_work_group;      /* CL_KERNEL_WORK_GROUP_SIZE of every kernel at most this */
} clradix_testing_traits;
void clradix_testing_set_traits(const clradix_testing_traits *traits);

/* While held (1), every program build waits before it starts; clradix_testing_builds_waiting
   says how many do. */
void clradix_testing_hold_builds(int hold);
unsigned clradix_testing_builds_waiting(void);

/* While held (1), buffers the library releases are kept, and all released at once when the
   hold ends: no buffer's address is reused within a run (see tests/kernel_check.c).
   clradix_testing_release is the library's clReleaseMemObject, for a test's own buffers. */
void clradix_testing_hold_releases(int hold);
cl_int clradix_testing_release(cl_mem buffer);

/* The bytes of the library's device buffers (of every sorter) alive now, and the most
   alive at once since the last reset (reset_peak: the peak starts again from now). */
void clradix_testing_device_bytes(size_t *now, size_t *peak, int reset_peak);

/* The largest size_t the library's size arithmetic accepts (0: SIZE_MAX), to check on a
   64-bit host what a 32-bit host would overflow. */
void clradix_testing_size_max(size_t max);

/* The most keys one in-core host sort takes (0: CLRADIX_MAX_N), to reach the out-of-core
   path for more keys than the kernels' 32-bit offsets hold with small arrays. */
void clradix_testing_max_keys_in_core(size_t n);

/* The shape the sorter's variant for key_bytes and value_bytes is built with (built now
   if it was not), the digits its ranking counts at once (COUNTER_DIGITS), and the most
   local memory one of its kernels uses. */
clradix_status clradix_testing_variant(clradix_sorter *sorter, unsigned key_bytes, unsigned value_bytes,
                                       clradix_tuning *shape, unsigned *counter_digits, cl_ulong *local_bytes);
/* Without a device: the shape that tuning row gets for that variant on a device with these
   limits, the digits its ranking counts at once, and the local memory its largest kernel
   declares (as the library estimates it). */
clradix_status clradix_testing_fit(const clradix_tuning *row, cl_ulong local_mem, size_t max_wg, cl_uint compute_units,
                                   unsigned key_bytes, unsigned value_bytes, clradix_tuning *shape,
                                   unsigned *counter_digits, size_t *local_bytes);

/* Row index of the tuning table as a CLRADIX_TUNING text, every field (LOCAL_N only where it
   is set): what a device of that row runs, for another device to be made to run it. */
clradix_status clradix_testing_row_text(unsigned index, char *text, size_t size);

#ifdef CLRADIX_TESTING_WRAP  /* set by internal.h: the library's calls go through the wrappers */
#include <stdlib.h>

size_t testing_size_max(void);
size_t testing_max_keys_in_core(void);
unsigned long testing_loop_budget(void);
void *testing_malloc(size_t size);
void *testing_calloc(size_t count, size_t size);
char *testing_strdup(const char *text);
cl_int testing_clGetDeviceInfo(cl_device_id, cl_device_info, size_t, void *, size_t *);
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
cl_int testing_clGetKernelWorkGroupInfo(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *);
cl_int testing_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                      const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int testing_clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int testing_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                                   const cl_event *, cl_event *);
cl_int testing_clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *,
                                   cl_event *);
void *testing_clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,
                                 const cl_event *, cl_event *, cl_int *);
void testing_device_limits(size_t *local_mem, size_t *max_wg, cl_ulong *max_alloc, cl_ulong *global_mem);

#define malloc testing_malloc
#define calloc testing_calloc
#define strdup testing_strdup
#define clGetDeviceInfo testing_clGetDeviceInfo
#define clCreateBuffer testing_clCreateBuffer
#define clReleaseMemObject clradix_testing_release
#define clCreateCommandQueue testing_clCreateCommandQueue
#define clCreateContext testing_clCreateContext
#define clCreateProgramWithSource testing_clCreateProgramWithSource
#define clCreateProgramWithBinary testing_clCreateProgramWithBinary
#define clBuildProgram testing_clBuildProgram
#define clCreateKernel testing_clCreateKernel
#define clGetKernelWorkGroupInfo testing_clGetKernelWorkGroupInfo
#define clEnqueueNDRangeKernel testing_clEnqueueNDRangeKernel
#define clEnqueueMarkerWithWaitList testing_clEnqueueMarkerWithWaitList
#define clEnqueueReadBuffer testing_clEnqueueReadBuffer
#define clEnqueueCopyBuffer testing_clEnqueueCopyBuffer
#define clEnqueueMapBuffer testing_clEnqueueMapBuffer
#endif

#endif
