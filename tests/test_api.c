/*
 * Checks that need no OpenCL device: status strings, and the argument checks that every
 * call makes before it touches OpenCL.
 */
#include <clradix.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_status_strings)
{
    const clradix_status all[] = { CLRADIX_SUCCESS, CLRADIX_ERROR_INVALID_ARGUMENT, CLRADIX_ERROR_INVALID_BUFFER,
                                   CLRADIX_ERROR_OUT_OF_RESOURCES, CLRADIX_ERROR_BUILD_FAILED,
                                   CLRADIX_ERROR_UNSUPPORTED, CLRADIX_ERROR_OPENCL, CLRADIX_ERROR_MPI };
    const size_t count = sizeof all / sizeof all[0];
    const char *unknown = clradix_status_string((clradix_status)12345);
    ck_assert_ptr_nonnull(unknown);
    ck_assert_ptr_nonnull(clradix_status_string((clradix_status)-1));
    for (size_t i = 0; i < count; ++i) {
        const char *text = clradix_status_string(all[i]);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_gt(strlen(text), 0);
        ck_assert_str_ne(text, unknown);
        for (size_t j = 0; j < i; ++j)
            ck_assert_str_ne(text, clradix_status_string(all[j]));
    }
    ck_assert_str_eq(clradix_status_string(CLRADIX_SUCCESS), "success");
}
END_TEST

START_TEST(test_null_arguments)
{
    /* Stand-ins that must never be dereferenced: every check below fails before. */
    cl_context context = (cl_context)0x10;
    cl_device_id device = (cl_device_id)0x20;
    cl_command_queue queue = (cl_command_queue)0x30;
    cl_mem buffer = (cl_mem)0x40;
    clradix_sorter *sorter = (clradix_sorter *)0x50;
    cl_event event = (cl_event)0x60;
    unsigned keys[4] = { 3, 1, 2, 0 };

    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sorter_create(context, NULL, &sorter), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sorter_create(NULL, device, &sorter), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sorter_create_tuned(context, NULL, NULL, &sorter), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(sorter, (clradix_sorter *)0x50);

    ck_assert_int_eq(clradix_sort_keys(NULL, queue, CLRADIX_U32, buffer, 4, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs(NULL, queue, CLRADIX_U32, buffer, buffer, 4, 4, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_keys_host(NULL, NULL, CLRADIX_U32, keys, 4, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_pairs_host(NULL, NULL, CLRADIX_U32, keys, keys, 4, 4, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(event, (cl_event)0x60);
    ck_assert_uint_eq(keys[0], 3);

    clradix_tuning tuning;
    ck_assert_int_eq(clradix_sorter_tuning(NULL, &tuning), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(clradix_sorter_context(NULL));
    ck_assert_ptr_null(clradix_sorter_device(NULL));
    ck_assert_str_eq(clradix_build_log(NULL), "");
    clradix_sorter_release(NULL);

    ck_assert_int_eq(clradix_device_list(1, NULL, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_device_find(NULL, NULL), CLRADIX_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* A program built against version 1.0's header has a clradix_tuning of eight unsigned
   fields: clradix_tuning_row writes those and nothing past them. */
START_TEST(test_tuning_row_struct_of_version_1_0)
{
    struct {
        unsigned fields[8];
        unsigned char guard[64];
    } old;
    for (unsigned r = 0;; ++r) {
        memset(&old, 0xA5, sizeof old);
        if (clradix_tuning_row(r, (clradix_tuning *)&old, NULL) != CLRADIX_SUCCESS)
            break;
        for (size_t i = 0; i < sizeof old.guard; ++i)
            ck_assert_uint_eq(old.guard[i], 0xA5);
        clradix_tuning row;
        ck_assert_int_eq(clradix_tuning_row(r, &row, NULL), CLRADIX_SUCCESS);
        ck_assert_uint_eq(old.fields[0], row.radix_bits);
        ck_assert_uint_eq(old.fields[1], row.work_group_size);
        ck_assert_uint_eq(old.fields[7], row.small_n);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("no-device");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_status_strings);
    tcase_add_test(tc, test_null_arguments);
    tcase_add_test(tc, test_tuning_row_struct_of_version_1_0);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
