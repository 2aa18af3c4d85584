/* The OpenCL C sources of cl/, embedded at build time (see cmake/EmbedKernels.cmake). */
#ifndef CLRADIX_KERNEL_SOURCES_H
#define CLRADIX_KERNEL_SOURCES_H

typedef struct clradix_kernel_source {
    const char *name;  /* file name in cl/, e.g. "scatter.cl"; NULL ends the table */
    const char *text;
} clradix_kernel_source;

extern const clradix_kernel_source clradix_kernel_sources[];

#endif
