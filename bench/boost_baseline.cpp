// Boost.Compute's radix sort as a baseline, on the caller's queue and buffers. The internal
// boost::compute::detail::radix_sort is used because the public boost::compute::sort
// switches to a merge sort on CPU devices.
#include "bench.h"

#include <boost/compute/algorithm/detail/radix_sort.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/compute/types.hpp>

#include <cstdio>
#include <exception>

namespace bc = boost::compute;

namespace {

template <class Key, class Value>
void sort_by_key(bc::command_queue &queue, cl_mem keys, cl_mem values, size_t n)
{
    bc::buffer key_buffer(keys), value_buffer(values);
    bc::detail::radix_sort_by_key(bc::make_buffer_iterator<Key>(key_buffer, 0),
                                  bc::make_buffer_iterator<Key>(key_buffer, n),
                                  bc::make_buffer_iterator<Value>(value_buffer, 0), queue);
}

template <class Key>
int sort_typed(bc::command_queue &queue, cl_mem keys, cl_mem values, size_t value_size, size_t n)
{
    if (!values) {
        bc::buffer key_buffer(keys);
        bc::detail::radix_sort(bc::make_buffer_iterator<Key>(key_buffer, 0),
                               bc::make_buffer_iterator<Key>(key_buffer, n), queue);
    } else if (value_size == 4) {
        sort_by_key<Key, bc::uint_>(queue, keys, values, n);
    } else if (value_size == 8) {
        sort_by_key<Key, bc::ulong_>(queue, keys, values, n);
    } else {
        return 1;  // Boost.Compute's radix sort moves only scalar values
    }
    queue.finish();
    return 0;
}

}  // namespace

extern "C" int boost_sort(cl_command_queue queue, clradix_key_type type, cl_mem keys, cl_mem values,
                          size_t value_size, size_t n, char *why, size_t why_size)
{
    std::snprintf(why, why_size, "Boost.Compute's radix sort takes no %zu-byte values", value_size);
    try {
        bc::command_queue q(queue);
        switch (type) {
        case CLRADIX_U32: return sort_typed<bc::uint_>(q, keys, values, value_size, n);
        case CLRADIX_I32: return sort_typed<bc::int_>(q, keys, values, value_size, n);
        case CLRADIX_F32: return sort_typed<bc::float_>(q, keys, values, value_size, n);
        case CLRADIX_U64: return sort_typed<bc::ulong_>(q, keys, values, value_size, n);
        case CLRADIX_I64: return sort_typed<bc::long_>(q, keys, values, value_size, n);
        case CLRADIX_F64: return sort_typed<bc::double_>(q, keys, values, value_size, n);
        case CLRADIX_U8: return sort_typed<bc::uchar_>(q, keys, values, value_size, n);
        case CLRADIX_I8: return sort_typed<bc::char_>(q, keys, values, value_size, n);
        case CLRADIX_U16: return sort_typed<bc::ushort_>(q, keys, values, value_size, n);
        case CLRADIX_I16: return sort_typed<bc::short_>(q, keys, values, value_size, n);
        case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F16_NUMPY: case CLRADIX_BF16_NUMPY:
        case CLRADIX_F16_NAN_LAST: case CLRADIX_BF16_NAN_LAST:
            std::snprintf(why, why_size, "Boost.Compute's radix sort takes no 16-bit float keys");
            return 1;
        case CLRADIX_U128: case CLRADIX_I128:
            std::snprintf(why, why_size, "Boost.Compute's radix sort takes no 128-bit keys");
            return 1;
        case CLRADIX_F32_NUMPY: case CLRADIX_F64_NUMPY: case CLRADIX_F32_NAN_LAST: case CLRADIX_F64_NAN_LAST: break;
        }
        std::snprintf(why, why_size, "Boost.Compute's radix sort has no numpy float order");
        return 1;
    } catch (const std::exception &e) {
        std::snprintf(why, why_size, "%s", e.what());
        return 2;
    }
}
