/*
 * clradix: a portable, stable LSD radix sort for OpenCL devices.
 *
 * A sorter is made for one device in one context; it compiles its OpenCL C kernels
 * when it is created (sources are built into the library) and then sorts device
 * buffers asynchronously, or host arrays blocking, on any queue of that device.
 *
 * Every call returns a clradix_status and validates all of its arguments before it
 * enqueues anything: a call that returns an error other than CLRADIX_ERROR_OPENCL or
 * CLRADIX_ERROR_OUT_OF_RESOURCES has changed nothing. The library never prints, aborts
 * or exits.
 *
 * Sorting is stable: keys that compare equal keep their input order, which is visible
 * through the values of a key-value sort.
 */
#ifndef CLRADIX_H
#define CLRADIX_H

/* The OpenCL version of the declarations is the application's choice (define
   CL_TARGET_OPENCL_VERSION before including this header or <CL/cl.h>): clradix uses only
   OpenCL 1.2 types here, and the library itself is built against the 1.2 API. */
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stddef.h>

#if defined(_WIN32) && defined(CLRADIX_SHARED)
#ifdef CLRADIX_BUILDING
#define CLRADIX_API __declspec(dllexport)
#else
#define CLRADIX_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CLRADIX_API __attribute__((visibility("default")))
#else
#define CLRADIX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------
 * Version: MAJOR changes when a program built against an older version may no longer
 * build or run with this one (it is the shared library's SONAME), MINOR when functions
 * or fields are added, PATCH for fixes. (CMake reads the version from these lines.)
 * ------------------------------------------------------------------------------ */

#define CLRADIX_VERSION_MAJOR 1
#define CLRADIX_VERSION_MINOR 16
#define CLRADIX_VERSION_PATCH 4
/* One number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define CLRADIX_VERSION_NUMBER (CLRADIX_VERSION_MAJOR * 10000 + CLRADIX_VERSION_MINOR * 100 + CLRADIX_VERSION_PATCH)

/* The version of the library the program runs with, as CLRADIX_VERSION_NUMBER (which gives
   the version it was built against). */
CLRADIX_API unsigned clradix_version(void);

/* ---------------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------------ */

typedef enum clradix_status {
    CLRADIX_SUCCESS = 0,
    CLRADIX_ERROR_INVALID_ARGUMENT,  /* NULL handle or pointer, unknown key type, bad bit range, bad value size,
                                        a queue or buffer of another context or device, a bad event wait list,
                                        n larger than CLRADIX_MAX_N, or n whose bytes overflow size_t */
    CLRADIX_ERROR_INVALID_BUFFER,    /* a buffer smaller than n elements, or unusable for this sort
                                        (read-only, keys and values overlapping) */
    CLRADIX_ERROR_OUT_OF_RESOURCES,  /* a device or host allocation failed, or would exceed the device's limits */
    CLRADIX_ERROR_BUILD_FAILED,      /* the kernels did not compile for this device: see clradix_build_log() */
    CLRADIX_ERROR_UNSUPPORTED,       /* the device or this build lacks what the sort needs */
    CLRADIX_ERROR_OPENCL,            /* any other OpenCL failure */
    CLRADIX_ERROR_MPI                /* an MPI call failed (clradix_mpi.h only; since 1.2) */
} clradix_status;

/* A fixed English sentence describing status; never NULL, also for unknown values. */
CLRADIX_API const char *clradix_status_string(clradix_status status);

/* ---------------------------------------------------------------------------------
 * Keys and options
 * ------------------------------------------------------------------------------ */

/*
 * Element type of the keys, and their order:
 *   U32, U64  unsigned integers.
 *   I32, I64  two's complement signed integers.
 *   F32, F64  IEEE 754 binary32 / binary64 in totalOrder:
 *             -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN,
 *             NaNs ordered by payload among themselves (a negative NaN with a larger
 *             payload comes first). Keys are moved bit for bit: every NaN payload and the
 *             sign of zero are kept. numpy and torch put every NaN last instead.
 *             Floats are handled as bit patterns, so F64 needs no double-precision
 *             support on the device.
 *   U8, U16   unsigned integers of 8 and 16 bits (since 1.4).
 *   I8, I16   two's complement signed integers of 8 and 16 bits (since 1.4).
 *   F16       IEEE 754 binary16 in a 16-bit word, in totalOrder as F32 (since 1.4).
 *   BF16      bfloat16 (the top 16 bits of a binary32) in a 16-bit word, in totalOrder
 *             as F32 (since 1.4).
 *   F32_NUMPY, F64_NUMPY, F16_NUMPY, BF16_NUMPY
 *             the same floats in numpy's order (since 1.5): every NaN (either sign, any
 *             payload) equal to every other and after +inf, -0.0 equal to +0.0, the rest
 *             by value; descending is the exact reverse (NaNs first). Being equal, NaNs
 *             and zeros keep their input order, and every key is moved bit for bit. The
 *             bit range applies to the totalOrder image of the key read canonically:
 *             every NaN as the positive NaN one above +inf's bits (0x7F800001 for F32),
 *             -0.0 as +0.0. The order costs no extra pass.
 *   F32_NAN_LAST, F64_NAN_LAST, F16_NAN_LAST, BF16_NAN_LAST
 *             numpy's order with NaNs last in both directions (since 1.11), as NumPy
 *             2.5's sort(..., descending=True) has it: ascending exactly as the _NUMPY
 *             types; descending by falling value, -0.0 equal to +0.0, every NaN after
 *             -inf, NaNs and zeros in input order. The bit range applies to the totalOrder
 *             image of the key read canonically: -0.0 as +0.0, every NaN as the positive
 *             NaN one above +inf's bits when ascending, as the negative NaN one below
 *             -inf's (0xFF800001 for F32) when descending. No extra pass either.
 *   U128, I128  128-bit integers (since 1.15), unsigned and two's complement, 16 bytes each
 *             in the host's byte order (unsigned __int128, 128-bit hashes and IDs): taken
 *             by clradix_sort_keys, clradix_sort_pairs, clradix_argsort, their _host forms
 *             and as record fields; sorted as records of two 64-bit words, the most
 *             significant first (see clradix_sort_records). They take no bit range but the
 *             whole key (begin_bit 0, end_bit 0 or 128; else CLRADIX_ERROR_UNSUPPORTED);
 *             descending works. The segmented sorts, top-k, the _multi calls and
 *             clradix_mpi return CLRADIX_ERROR_UNSUPPORTED for them. Pairs: an argsort, then the keys and
 *             values gathered from copies (temporaries: n 4-byte positions, a copy of each).
 * Keys are read and written at their own width (1, 2, 4 or 8 bytes each); a sort runs one
 * digit pass per 8 bits of the bit range at most, so 8-bit keys take one pass, 16-bit keys
 * two. No type needs half- or double-precision arithmetic on the device.
 * 64-bit key types need 64-bit integers in kernels (every full-profile device; an
 * embedded-profile one needs cles_khr_int64): without them a call returns
 * CLRADIX_ERROR_UNSUPPORTED.
 */
typedef enum clradix_key_type {
    CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64, CLRADIX_I64, CLRADIX_F64,
    CLRADIX_U8, CLRADIX_I8, CLRADIX_U16, CLRADIX_I16, CLRADIX_F16, CLRADIX_BF16,
    CLRADIX_F32_NUMPY, CLRADIX_F64_NUMPY, CLRADIX_F16_NUMPY, CLRADIX_BF16_NUMPY,
    CLRADIX_F32_NAN_LAST, CLRADIX_F64_NAN_LAST, CLRADIX_F16_NAN_LAST, CLRADIX_BF16_NAN_LAST,
    CLRADIX_U128, CLRADIX_I128
} clradix_key_type;

/* Largest n a device-buffer call accepts: offsets inside the kernels are 32-bit. The
   host-array calls take any n (larger sorts go out of core). */
#define CLRADIX_MAX_N ((size_t)0xFFFFFFFFu)

/* Per-call options. A NULL pointer, or every field zero, means: all bits, ascending.
   Fields may be added at the end in later versions; zero will always mean "default",
   so zero-initialise the struct ({0}) before setting fields. The calls of version 1.x read
   exactly the three fields below; a field added later is read only from callers that say
   their struct has it, so a program built against an older header is never read past
   the end of its struct. */
typedef struct clradix_options {
    unsigned begin_bit;   /* first bit that takes part in the sort (default 0) */
    unsigned end_bit;     /* one past the last; 0 means the key's width. The range is
                             checked after that replacement: begin_bit <= end_bit <= width,
                             else CLRADIX_ERROR_INVALID_ARGUMENT; begin_bit == end_bit sorts
                             nothing and leaves the order unchanged. The bits are those of
                             the key's order-preserving image (signed keys with the sign bit
                             flipped; floats with every bit of negatives flipped and the sign
                             bit of the others), whose unsigned order is the key order above;
                             for unsigned keys that is the key itself. Only the digit passes
                             that cover the range run. */
    int descending;       /* non-zero: largest first; equal keys still keep their input order */
} clradix_options;

/* ---------------------------------------------------------------------------------
 * Devices
 *
 * Devices are numbered across all platforms: every device of the first platform that
 * clGetPlatformIDs returns, in clGetDeviceIDs order, then those of the next platform.
 * The same numbers are used by CLRADIX_DEVICE and by clradix-bench.
 * ------------------------------------------------------------------------------ */

/* Fills devices[0 .. min(capacity, total)) in that numbering and sets *count (if not
   NULL) to the total number of devices. devices may be NULL when capacity is 0.
   No devices at all is success with *count = 0. */
CLRADIX_API clradix_status clradix_device_list(cl_uint capacity, cl_device_id *devices, cl_uint *count);

/* Finds a device by spec: a string made only of digits is an index in the numbering
   above; anything else is matched, ignoring case, as a substring of
   "<platform name> <device name>" and the first match wins. spec NULL or empty picks the
   default device: the one CLRADIX_DEVICE names if that variable is set and not empty,
   else the first GPU, else the first device. No match (or a CLRADIX_DEVICE that matches
   nothing): CLRADIX_ERROR_UNSUPPORTED when there are no devices at all, else
   CLRADIX_ERROR_INVALID_ARGUMENT. */
CLRADIX_API clradix_status clradix_device_find(const char *spec, cl_device_id *device);

/* ---------------------------------------------------------------------------------
 * Sorter
 * ------------------------------------------------------------------------------ */

typedef struct clradix_sorter clradix_sorter;

/* Creates a sorter for device in context, and builds its kernels for the most common
   variant (32-bit keys, keys only); other variants are built on their first use.
   context and device both NULL: the default device (see clradix_device_find), in a
   context the sorter creates and owns. Exactly one of them NULL, or a device that is
   not in context: CLRADIX_ERROR_INVALID_ARGUMENT. The sorter retains context and device
   and releases them in clradix_sorter_release. On error *sorter is left untouched.
   Devices: every call and key type runs on any device with at least 16 KiB of local
   memory per work-group (every full-profile device has 32 KiB) and work-group limits of
   any size, the device's own and each kernel's (CL_KERNEL_WORK_GROUP_SIZE): the kernels'
   shape is fitted to them, variant by variant. A device with less local memory (an
   embedded-profile device may have 1 KiB): CLRADIX_ERROR_UNSUPPORTED here, never at a
   later call. Mesa's llvmpipe (rusticl and Clover on a CPU) stops a work-item's loops
   after 65535 iterations per launch; the sorter measures such a limit here and keeps
   every launch within it. */
CLRADIX_API clradix_status clradix_sorter_create(cl_context context, cl_device_id device, clradix_sorter **sorter);

/* Releases the sorter and what it owns. Accepts NULL. Sorts already enqueued run to
   completion: the sorter's temporary buffers are released only after the commands that
   use them finish, so releasing while a returned event is still pending is safe. Do not
   call it while another thread is inside a call on the same sorter. */
CLRADIX_API void clradix_sorter_release(clradix_sorter *sorter);

/* The context and device the sorter uses (not retained for the caller: valid while the
   sorter lives). NULL when sorter is NULL. */
CLRADIX_API cl_context clradix_sorter_context(const clradix_sorter *sorter);
CLRADIX_API cl_device_id clradix_sorter_device(const clradix_sorter *sorter);

/* The compiler's log of the last build of this sorter's kernels that failed; sorter NULL:
   of the last clradix_sorter_create that failed to build in the calling thread. An empty
   string when there is none; never NULL. Valid until the sorter is released, whatever
   other threads do meanwhile (or, for NULL, until the next create in this thread).
   Kernels are compiled on a variant's first use without blocking sorts of variants
   already built; threads that need the same variant wait for that one build. */
CLRADIX_API const char *clradix_build_log(const clradix_sorter *sorter);

/* ---------------------------------------------------------------------------------
 * Tuning
 *
 * The kernels' shape is chosen per device from a table built into the library when the
 * sorter is created, and clamped to the device's limits (work-group size, local memory).
 * The environment variable CLRADIX_TUNING (for example "RADIX_BITS=4,WG=64,KPT=8", names as in clradix_tuning)
 * overrides table values; a clradix_tuning passed to clradix_sorter_create_tuned
 * overrides both. Zero fields mean "keep the value from the table".
 * ------------------------------------------------------------------------------ */

/* The calls below read and write exactly the eight fields of version 1.0, field by field,
   in every 1.x version: fields added later will come with calls that are told the size of
   the caller's struct, so no call writes or reads past the end of a program's struct. */
typedef struct clradix_tuning {
    unsigned radix_bits;       /* RADIX_BITS: bits sorted per pass, 1..8 */
    unsigned work_group_size;  /* WG: work-items per group of the sort kernels, a power of two */
    unsigned keys_per_item;    /* KPT: keys each work-item ranks per tile, 1..256 */
    unsigned rank_bits;        /* RANK_BITS: bits of the digit ranked per round inside a tile, 1..radix_bits */
    unsigned groups_per_unit;  /* GROUPS_PER_CU: work-groups per compute unit, 1..1024 */
    unsigned hist_copies;      /* HIST_COPIES: sub-histograms per work-group, a power of two up to
                                  work_group_size (equal to it: counting without atomics) */
    unsigned fused;            /* FUSED: 2 counts each pass's digits while the pass before writes
                                  the keys (for up to 64 work-groups), 1 reads the keys again */
    unsigned small_n;          /* SMALL_N: most keys sorted by one work-group in one launch,
                                  a power of two; 1 turns that path off */
} clradix_tuning;

/* As clradix_sorter_create, with tuning overrides (NULL: none). A value outside its range,
   or a work-group size that is not a power of two: CLRADIX_ERROR_INVALID_ARGUMENT. Values
   the device cannot run are reduced to fit (tiles before work-groups where local memory
   runs short; work-groups to each kernel's own limit; FUSED off where loops are budgeted);
   a shape that cannot be reduced far enough: CLRADIX_ERROR_UNSUPPORTED.
   clradix_sorter_tuning reports what is used. Whatever the shape, it sorts right. */
CLRADIX_API clradix_status clradix_sorter_create_tuned(cl_context context, cl_device_id device,
                                                       const clradix_tuning *tuning, clradix_sorter **sorter);

/* Caps the device memory of this sorter's calls from the next call on: bytes, or 0 for
   the device's own (seven eighths of its global memory, the rest left to the driver and
   the application). May be called while sorts are in flight. What counts: the
   temporaries the sorter keeps for reuse and those of calls under way, and the device
   copies of host arrays; the host-array calls keep all of that within the cap together,
   however many threads, workers (by parts) or _multi entries share the sorter: one
   waits for another's memory before it starts (idle temporaries are freed first). A
   device-buffer call whose temporaries do not fit returns CLRADIX_ERROR_OUT_OF_RESOURCES
   and changes nothing (it never waits; device-buffer calls under way at the same time
   can take the total past the cap). Host-array calls sort out of core within it (see
   there). sorter NULL: CLRADIX_ERROR_INVALID_ARGUMENT. */
CLRADIX_API clradix_status clradix_sorter_set_memory_limit(clradix_sorter *sorter, size_t bytes);

/* The parameters the sorter's kernels were built with (for 32-bit keys alone; other
   variants may use smaller tiles where their local memory needs it). */
CLRADIX_API clradix_status clradix_sorter_tuning(const clradix_sorter *sorter, clradix_tuning *tuning);

/* Row index of the built-in table, from 0: its parameters, and (if devices is not NULL) a
   description of the devices it is for. CLRADIX_ERROR_INVALID_ARGUMENT past the last row
   or for a NULL tuning. */
CLRADIX_API clradix_status clradix_tuning_row(unsigned index, clradix_tuning *tuning, const char **devices);

/* ---------------------------------------------------------------------------------
 * Sorting device buffers: asynchronous, in place
 *
 * keys (and values) are buffers of the sorter's context holding at least n elements
 * (n * value_size bytes of values), readable and writable by kernels, and not
 * overlapping each other. queue is a queue of the sorter's device and context, in order
 * or out of order. Nothing reads the buffers before every event of event_wait_list has
 * completed, and the calls never wait for the device themselves. On success, when
 * event is not NULL, *event receives a new event (the caller releases it) that
 * completes after the whole sort, also when there was nothing to sort (n == 0 or an
 * empty bit range). On error *event is left untouched.
 *
 * The sorted keys end in keys, each value moved with its key. A sort uses temporary
 * device memory of about n keys and n values (argsort: two copies of the keys and one of
 * the indices); the sorter keeps the temporaries of its last few sorts and reuses them
 * once the sort that used them has completed, until clradix_sorter_release.
 *
 * Sorting is stable in both directions; the key order is the one stated at
 * clradix_key_type, restricted to the options' bit range.
 *
 * Thread safety: several threads may sort with one sorter at once, each on its own
 * queue (or sharing one).
 *
 * Failures: every argument, buffer, device limit and the temporary memory the sort needs
 * (each buffer within CL_DEVICE_MAX_MEM_ALLOC_SIZE, all of them within the device's
 * memory) are checked before anything is enqueued; a call rejected there changes
 * nothing. If the OpenCL runtime fails a call after work was enqueued
 * (CLRADIX_ERROR_OPENCL or CLRADIX_ERROR_OUT_OF_RESOURCES), the caller's buffers are left
 * as they were, fully sorted, or a permutation of their input with every key still paired
 * with its value: nothing is lost or duplicated. Argsort never writes the keys; its
 * indices are then as they were or a permutation of 0 .. n-1. Sorts through the
 * segmented engine (segmented sorts, and flat sorts that partition first, as on CPUs)
 * give less when the runtime fails between two of their kernels: every key is still
 * paired with its value and within its segment, but within a segment keys may be lost or
 * duplicated (the engine moves a segment's buckets between the caller's buffers and
 * temporaries in pieces; a stronger promise would cost another copy of the data).
 * ------------------------------------------------------------------------------ */

CLRADIX_API clradix_status clradix_sort_keys(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                             cl_mem keys, size_t n, const clradix_options *options,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);

/* value_size: bytes per value, 4, 8 or 16 (a u32 index, a u64 or double payload, a pair of
   them); values move with their keys in the same passes and are copied bit for bit.
   0 or values NULL: CLRADIX_ERROR_INVALID_ARGUMENT; another size: CLRADIX_ERROR_UNSUPPORTED. */
CLRADIX_API clradix_status clradix_sort_pairs(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                              cl_mem keys, cl_mem values, size_t value_size, size_t n,
                                              const clradix_options *options,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event);

/* Argsort: writes to indices the stable sorting permutation of keys, as index_size-byte
   unsigned integers (4 or 8; else CLRADIX_ERROR_INVALID_ARGUMENT): indices[i] is the
   position in keys of the i-th key in sorted order. keys is only read (it may be a
   CL_MEM_READ_ONLY buffer) and stays as it is. The temporary memory is about two copies of
   the keys and one of the indices. */
CLRADIX_API clradix_status clradix_argsort(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                           cl_mem keys, cl_mem indices, size_t index_size, size_t n,
                                           const clradix_options *options,
                                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                           cl_event *event);

/* ---------------------------------------------------------------------------------
 * Segmented sorts of device buffers: asynchronous, in place (since 1.3)
 *
 * keys[0 .. n) holds num_segments segments: segment i is [offsets[i], offsets[i + 1]),
 * and each is sorted on its own, stably, with the options' bit range and direction (rows
 * of a matrix, CSR rows, buckets). offsets is a buffer of the sorter's context holding
 * num_segments + 1 non-decreasing cl_uint values (in the device's byte order) with
 * offsets[num_segments] <= n; it is only read. Elements outside
 * [offsets[0], offsets[num_segments]) are neither read nor written. num_segments == 0:
 * success, nothing changes (offsets may then be NULL; with segments, NULL is
 * CLRADIX_ERROR_INVALID_ARGUMENT); num_segments must be below 2^32 - 1.
 *
 * The offsets lie on the device, so the library never reads them on the host: segments
 * are binned by size on the device, and the number of commands enqueued does not depend
 * on num_segments or on the sizes. Offsets that decrease or pass n never make a kernel
 * read or write outside [0, n) of keys, values or indices (they are clamped); the result
 * for such segments is unspecified.
 *
 * Everything else as for clradix_sort_keys, clradix_sort_pairs and clradix_argsort: the
 * queue, events, wait list, buffers (an offsets buffer smaller than num_segments + 1
 * values: CLRADIX_ERROR_INVALID_BUFFER), value and index sizes, thread safety, temporary
 * memory (about n keys and values, plus lists and tables of a few bytes per segment) and
 * failures.
 * ------------------------------------------------------------------------------ */

CLRADIX_API clradix_status clradix_sort_segments_keys(clradix_sorter *sorter, cl_command_queue queue,
                                                      clradix_key_type type, cl_mem keys, size_t n, cl_mem offsets,
                                                      size_t num_segments, const clradix_options *options,
                                                      cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list, cl_event *event);

/* Values of value_size bytes (4, 8 or 16) move with their keys, as in clradix_sort_pairs. */
CLRADIX_API clradix_status clradix_sort_segments_pairs(clradix_sorter *sorter, cl_command_queue queue,
                                                       clradix_key_type type, cl_mem keys, cl_mem values,
                                                       size_t value_size, size_t n, cl_mem offsets,
                                                       size_t num_segments, const clradix_options *options,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event);

/* indices[j], j in segment i: the position in keys (offsets[i] <= indices[j] < offsets[i + 1])
   of the (j - offsets[i])-th key of that segment in stable order, as index_size-byte
   unsigned integers (4 or 8). keys is only read and stays as it is; indices outside the
   segments are not written. */
CLRADIX_API clradix_status clradix_argsort_segments(clradix_sorter *sorter, cl_command_queue queue,
                                                    clradix_key_type type, cl_mem keys, cl_mem indices,
                                                    size_t index_size, size_t n, cl_mem offsets,
                                                    size_t num_segments, const clradix_options *options,
                                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                    cl_event *event);

/* ---------------------------------------------------------------------------------
 * Sorting host arrays: blocking
 *
 * Copies the arrays to the device, sorts them and copies them back before returning; on a
 * device that works in the host's memory (CL_DEVICE_HOST_UNIFIED_MEMORY: CPUs) an in-core
 * sort works in the arrays themselves, without copies (since 1.3). queue may be NULL: the sorter then uses an in-order queue of its own (one per call in
 * flight). keys (and values) must not be NULL, also when n is 0. A device whose byte order
 * differs from the host's would misread the host's keys: CLRADIX_ERROR_UNSUPPORTED (the
 * device-buffer calls read keys, and write 8-byte indices, in the device's byte order).
 * Any n that host memory holds: a sort that does not fit the device at once (its memory,
 * its largest allocation, clradix_sorter_set_memory_limit, or more than CLRADIX_MAX_N
 * keys) goes out of core, with the same result: a stable partition by the top digits of
 * the bit range, then each part sorted on the device; so does one whose in-core attempt
 * fails to allocate before anything was written. Argsort of more than CLRADIX_MAX_N
 * keys needs 8-byte indices (4: CLRADIX_ERROR_INVALID_ARGUMENT).
 * On error the arrays are as they were; only a device that fails while it copies the
 * result of an in-core sort back, or on a device that works in the host's memory one that
 * fails after the sort started, can leave them otherwise (as the device-buffer calls leave
 * their buffers). Memory: the device buffers,
 * the temporaries of the device-buffer calls, and for pairs a host copy of the values;
 * out of core, host copies of the keys and values (two when a part must be split again),
 * whose allocation failing is CLRADIX_ERROR_OUT_OF_RESOURCES with the arrays untouched.
 * ------------------------------------------------------------------------------ */

CLRADIX_API clradix_status clradix_sort_keys_host(clradix_sorter *sorter, cl_command_queue queue,
                                                  clradix_key_type type, void *keys, size_t n,
                                                  const clradix_options *options);

/* Pairs as in clradix_sort_pairs: value_size 4, 8 or 16. */
CLRADIX_API clradix_status clradix_sort_pairs_host(clradix_sorter *sorter, cl_command_queue queue,
                                                   clradix_key_type type, void *keys, void *values,
                                                   size_t value_size, size_t n, const clradix_options *options);

/* Argsort as in clradix_argsort: keys only read, index_size 4 or 8. */
CLRADIX_API clradix_status clradix_argsort_host(clradix_sorter *sorter, cl_command_queue queue,
                                                clradix_key_type type, const void *keys, void *indices,
                                                size_t index_size, size_t n, const clradix_options *options);

/* Segmented sorts of host arrays (since 1.3), blocking, with the segments and results of
   the device-buffer calls above; offsets are num_segments + 1 size_t values, checked
   before anything happens: NULL with num_segments > 0, decreasing, or past n is
   CLRADIX_ERROR_INVALID_ARGUMENT, the arrays untouched. Any n, as the other host calls:
   only [offsets[0], offsets[num_segments]) is copied to the device, and segments that do
   not fit it at once are sorted in runs of consecutive segments (a segment larger than
   the device out of core, as clradix_sort_keys_host). On error the arrays are as they
   were, except that when the sort went by runs, the segments of the runs done before the
   failure are sorted. Argsort of more than CLRADIX_MAX_N keys needs 8-byte indices. */
CLRADIX_API clradix_status clradix_sort_segments_keys_host(clradix_sorter *sorter, cl_command_queue queue,
                                                           clradix_key_type type, void *keys, size_t n,
                                                           const size_t *offsets, size_t num_segments,
                                                           const clradix_options *options);

/* Pairs: value_size 4, 8 or 16, as in clradix_sort_pairs_host. */
CLRADIX_API clradix_status clradix_sort_segments_pairs_host(clradix_sorter *sorter, cl_command_queue queue,
                                                            clradix_key_type type, void *keys, void *values,
                                                            size_t value_size, size_t n, const size_t *offsets,
                                                            size_t num_segments, const clradix_options *options);

/* Argsort: keys only read, index_size 4 or 8; indices are positions in the whole array. */
CLRADIX_API clradix_status clradix_argsort_segments_host(clradix_sorter *sorter, cl_command_queue queue,
                                                         clradix_key_type type, const void *keys, void *indices,
                                                         size_t index_size, size_t n, const size_t *offsets,
                                                         size_t num_segments, const clradix_options *options);

/* ---------------------------------------------------------------------------------
 * Sorting host arrays on several devices: blocking
 *
 * One sort shared by num_sorters sorters (devices of any platforms and contexts; the same
 * sorter twice, or sorters of one device, work too), with the parameters of the
 * single-device host calls and the same result, bit for bit. Where one of the devices
 * takes the whole sort at once (in the order given, under its memory limit), it sorts it
 * alone in core: partitioning on the host costs more than that sort. Else the keys are
 * partitioned by the top digits of the bit range on the host (as out of core, see above),
 * and the devices sort the parts, a faster device taking more of them; each sorter uses
 * queues of its own. One sorter: the single-device call. num_sorters 0, sorters NULL or a NULL
 * entry: CLRADIX_ERROR_INVALID_ARGUMENT; a key type that one of the sorters cannot sort,
 * or a device of another byte order than the host's: CLRADIX_ERROR_UNSUPPORTED, before
 * any work. Memory and failures as the single-device calls: in core as there, by parts as
 * out of core (the arrays untouched on error).
 * ------------------------------------------------------------------------------ */

CLRADIX_API clradix_status clradix_sort_keys_host_multi(clradix_sorter *const *sorters, unsigned num_sorters,
                                                        clradix_key_type type, void *keys, size_t n,
                                                        const clradix_options *options);

/* Pairs as in clradix_sort_pairs_host. */
CLRADIX_API clradix_status clradix_sort_pairs_host_multi(clradix_sorter *const *sorters, unsigned num_sorters,
                                                         clradix_key_type type, void *keys, void *values,
                                                         size_t value_size, size_t n, const clradix_options *options);

/* Argsort as in clradix_argsort_host. */
CLRADIX_API clradix_status clradix_argsort_host_multi(clradix_sorter *const *sorters, unsigned num_sorters,
                                                      clradix_key_type type, const void *keys, void *indices,
                                                      size_t index_size, size_t n, const clradix_options *options);

/* ---------------------------------------------------------------------------------
 * Top-k: the first k keys of the stable sort, without sorting everything (since 1.5)
 *
 * The first k keys of the stable sort of keys[0 .. n) in the options' order (ascending:
 * the k smallest; descending: the k largest; equal keys by position; the bit range and
 * key order as for the sorts), in that order, into out_keys (k keys of the key type) and,
 * unless out_indices is NULL, their positions in keys into out_indices (k indices of
 * index_size 4 or 8 bytes). keys is only read. Either output may be NULL, not both
 * (CLRADIX_ERROR_INVALID_ARGUMENT); k > n: CLRADIX_ERROR_INVALID_ARGUMENT; k == 0 succeeds
 * and writes nothing. Outputs smaller than k elements, or overlapping keys or each other:
 * CLRADIX_ERROR_INVALID_BUFFER. The result is the prefix of the stable sort, the same bytes
 * on every device.
 *
 * clradix_topk selects by radix select on the device. Two reads of the keys cut them down
 * to candidates: a sample bounds the top digit of the k-th key to a range, a count checks
 * it (should the sample mislead, a count of every top digit takes its place), and a split
 * keeps the keys below the range (they are in) and those inside it (the candidates), in
 * input order. The candidates alone (about n / 256 of random keys) then decide the k-th
 * key digit by digit, from the top; the keys before it in the order and the first of
 * those equal to it are sorted stably with their positions. The number of launches
 * depends on the key width only, and nothing is read back or waited for: as the other
 * device-buffer calls, it enqueues and returns, with an event for the whole. Where the
 * device's tuning row says a full sort is faster for so large a k (TOPK_SORT, see
 * docs/tuning.md), the first k of a full argsort instead. Temporaries: up to n keys and n 4-byte
 * positions (the candidates), and k of each.
 *
 * Rows (clradix_topk_rows): rows x row_length keys, row-major, the first k of each row's
 * stable sort into out_keys / out_indices (rows x k, row-major), indices being positions
 * within the row; k > row_length: CLRADIX_ERROR_INVALID_ARGUMENT. One work-group selects
 * each row's k (a radix select of its own over the row), and a segmented sort of k keys per
 * row orders them: temporaries of rows x k keys and 4-byte positions. Rows longer than the
 * device's tuning row gives one work-group (MEDIUM_N) take the first k of a segmented
 * argsort instead: temporaries of n 4-byte positions and the argsort's.
 * The _host forms take and fill host arrays and block; they need the keys, the outputs
 * and the temporaries (the sort inside included) to fit the device at once (else
 * CLRADIX_ERROR_OUT_OF_RESOURCES), and count all of it against the sorter's memory limit
 * together with its other host-array calls, waiting for their memory as those do. The
 * outputs are written only once everything has been read back: on error they are as
 * they were. A device-buffer top-k whose temporaries do not fit the limit returns
 * CLRADIX_ERROR_OUT_OF_RESOURCES before it enqueues anything.
 * ------------------------------------------------------------------------------ */

CLRADIX_API clradix_status clradix_topk(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                        cl_mem keys, size_t n, size_t k, cl_mem out_keys, cl_mem out_indices,
                                        size_t index_size, const clradix_options *options,
                                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                        cl_event *event);

/* clradix_topk of host arrays (keys n, out_keys k keys, out_indices k indices), blocking. */
CLRADIX_API clradix_status clradix_topk_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                             const void *keys, size_t n, size_t k, void *out_keys, void *out_indices,
                                             size_t index_size, const clradix_options *options);

/* Each of rows rows of row_length keys: its first k into rows x k outputs. */
CLRADIX_API clradix_status clradix_topk_rows(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                             cl_mem keys, size_t rows, size_t row_length, size_t k, cl_mem out_keys,
                                             cl_mem out_indices, size_t index_size, const clradix_options *options,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);

/* clradix_topk_rows of host arrays, blocking. */
CLRADIX_API clradix_status clradix_topk_rows_host(clradix_sorter *sorter, cl_command_queue queue,
                                                  clradix_key_type type, const void *keys, size_t rows,
                                                  size_t row_length, size_t k, void *out_keys, void *out_indices,
                                                  size_t index_size, const clradix_options *options);

/* ---------------------------------------------------------------------------------
 * Records and gathers (since 1.10)
 *
 * Records: n records of record_size bytes (any size >= 1) in one array, sorted stably by
 * several key fields: by fields[0], records whose fields[0] are equal by fields[1], and so
 * on (fields[0] most significant; at most CLRADIX_MAX_FIELDS fields). Records equal in
 * every field keep their input order. Each field is a key of its type read in the byte
 * order of the device (host calls: the host's, which must be the device's) at any byte
 * offset, no alignment needed, and ordered as that key type in the other calls (floats in
 * totalOrder, or numpy's order for the _NUMPY and _NAN_LAST types); a field's descending
 * reverses that field alone, exactly as options.descending reverses a key type's order
 * (NaNs of a _NAN_LAST field stay last). Fields must lie
 * within the record (offset + the type's width <= record_size); they may overlap, and a
 * list may name the same bytes twice. Bytes outside the fields do not take part. A
 * 128-bit unsigned key is two CLRADIX_U64 fields, the high word first (at offset 8 of a
 * little-endian 16-byte record: fields {U64, 8, 0} then {U64, 0, 0}), or since 1.15 one
 * CLRADIX_U128 field (CLRADIX_I128: signed), which counts as those two.
 *
 * How: each record's fields make one unsigned composite key (fields[0] at the top, each
 * field as the order-preserving image of its type, see clradix_options). Records of 4 or 8
 * bytes whose composite is their bits rotated (the fields one after another in the record,
 * the most significant last in memory or wrapping around its end: two fields of one 8-byte
 * record, a field beside a payload; floats of one width, none in numpy's order; on a
 * little-endian host) are read as one key by the sort itself, which moves them unchanged,
 * as clradix_sort_keys moves keys (no temporaries but the sort's own, the same failure
 * guarantee). Otherwise a composite of 32 bits or less is sorted as 32-bit keys, of 64 or
 * less as 64-bit keys, by the pairs sort with the records' positions (so digits that do
 * not vary cost no pass); a wider one by its words, the most significant first (since
 * 1.15; since 1.16 words of 32 bits cut from the top): that word sorted with the
 * positions, then for each next word only the runs of records equal in the words so far,
 * sorted by it (runs of up to 16 records at once, longer ones by one segmented sort):
 * random 128-bit keys cost about one sort of their top 32 bits. (On a device that ends
 * long loops early, Mesa's llvmpipe, by 64-bit words, least significant first, as before
 * 1.15.) clradix_sort_records then moves each record once, by a gather, except where
 * cheaper: records of 4, 8 or 16 bytes move through the sorts as the values; records that
 * are their one-word key (fields covering every byte once, none in numpy's order) are
 * sorted as it and written back.
 *
 * Checks, before anything is enqueued: fields NULL, num_fields 0 or more than
 * CLRADIX_MAX_FIELDS, an unknown type, a field past the record, record_size 0, or an
 * index size other than 4 and 8: CLRADIX_ERROR_INVALID_ARGUMENT; a buffer smaller than
 * n * record_size bytes (indices: n * index_size), or indices overlapping records:
 * CLRADIX_ERROR_INVALID_BUFFER; a device without 64-bit integers in kernels (but for
 * 4-byte records read as keys): CLRADIX_ERROR_UNSUPPORTED. Everything else as for
 * clradix_sort_pairs and clradix_argsort: queue, events and wait list, thread safety,
 * failures (records are only read by clradix_argsort_records). Temporaries: records read
 * as keys, those of clradix_sort_keys or clradix_argsort of their width; else n words of 4
 * or 8 bytes, the pairs sort's (past one word also 3n bytes of run marks, n / 17 + 2
 * 4-byte segment offsets and the segmented sort's), and for clradix_sort_records by a
 * gather n 4-byte positions and one copy of the records. The device-buffer calls address
 * at most CLRADIX_MAX_N records.
 *
 * The _host forms take host arrays, block, and take any n. Records read as keys are sorted
 * as clradix_sort_keys_host sorts keys (clradix_argsort_host: argsorted), memory and
 * failures included. Other records go through the device-buffer call where the device
 * takes them at once (in buffers over the arrays where the device works in the host's
 * memory, else copies; failures then as for clradix_sort_keys_host). Otherwise (past the
 * device's memory, or a device without 64-bit integers or that ends long loops) each
 * word is made on the host
 * and sorted with the positions by clradix_sort_pairs_host (out of core where that goes
 * out of core); clradix_sort_records_host then moves the records on the host. Memory on
 * the host: n words and n positions, and for clradix_sort_records_host a copy of the
 * records; its allocation failing is CLRADIX_ERROR_OUT_OF_RESOURCES with the arrays
 * untouched, and on any error of this path the records and indices are as they were. More than
 * CLRADIX_MAX_N records need 8-byte indices (4: CLRADIX_ERROR_INVALID_ARGUMENT).
 * ------------------------------------------------------------------------------ */

/* The most fields a record sort takes. */
#define CLRADIX_MAX_FIELDS 16u

typedef struct clradix_key_field {
    clradix_key_type type;   /* the field's type and order: any key type */
    size_t offset;           /* its byte offset within a record */
    int descending;          /* nonzero: this field in descending order */
} clradix_key_field;

/* Sorts the records in place, whole records moving. */
CLRADIX_API clradix_status clradix_sort_records(clradix_sorter *sorter, cl_command_queue queue, cl_mem records,
                                                size_t record_size, size_t n, const clradix_key_field *fields,
                                                unsigned num_fields, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/* The stable permutation instead: indices[i] is the position of the i-th record in sorted
   order, as index_size-byte unsigned integers (4 or 8); records are only read. */
CLRADIX_API clradix_status clradix_argsort_records(clradix_sorter *sorter, cl_command_queue queue, cl_mem records,
                                                   size_t record_size, size_t n, const clradix_key_field *fields,
                                                   unsigned num_fields, cl_mem indices, size_t index_size,
                                                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                   cl_event *event);

/* clradix_sort_records of a host array, blocking; any n. */
CLRADIX_API clradix_status clradix_sort_records_host(clradix_sorter *sorter, cl_command_queue queue, void *records,
                                                     size_t record_size, size_t n, const clradix_key_field *fields,
                                                     unsigned num_fields);

/* clradix_argsort_records of a host array, blocking; any n (past CLRADIX_MAX_N: 8-byte indices). */
CLRADIX_API clradix_status clradix_argsort_records_host(clradix_sorter *sorter, cl_command_queue queue,
                                                        const void *records, size_t record_size, size_t n,
                                                        const clradix_key_field *fields, unsigned num_fields,
                                                        void *indices, size_t index_size);

/*
 * Gather: dst[i] = src[indices[i]] for i in [0, n), elements of element_size bytes (any
 * size >= 1), indices of index_size bytes (4 or 8; in the device's byte order for the
 * device-buffer call); one argsort then moves any number of arrays. An index >= src_n
 * never makes a kernel read outside src (it is clamped to src_n - 1) and leaves that
 * element of dst unspecified. Checks before anything is enqueued: index_size not 4 or 8,
 * element_size 0, src_n 0 with n > 0, or n past CLRADIX_MAX_N (device buffers):
 * CLRADIX_ERROR_INVALID_ARGUMENT; indices smaller than n * index_size bytes, src smaller
 * than src_n * element_size, dst smaller than n * element_size, or dst overlapping src or
 * indices: CLRADIX_ERROR_INVALID_BUFFER. Queue, events and failures as for the sorts;
 * no temporaries. The host form takes any n: on the device where indices, src and dst fit
 * it at once (under the sorter's memory limit), else on the host; on error dst is as it
 * was.
 */
CLRADIX_API clradix_status clradix_gather(clradix_sorter *sorter, cl_command_queue queue, cl_mem indices,
                                          size_t index_size, cl_mem src, size_t src_n, cl_mem dst,
                                          size_t element_size, size_t n, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* clradix_gather of host arrays, blocking; any n. */
CLRADIX_API clradix_status clradix_gather_host(clradix_sorter *sorter, cl_command_queue queue, const void *indices,
                                               size_t index_size, const void *src, size_t src_n, void *dst,
                                               size_t element_size, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CLRADIX_H */
