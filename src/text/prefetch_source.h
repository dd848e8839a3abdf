// Decompression on its own thread: a ByteSource decorator that reads the wrapped source ahead into a
// few chunks while the consumer splits lines, so reading a compressed corpus costs about
// max(decompress, split) instead of their sum. Errors surface in the consumer at the byte where
// they happened, after all data before them.
#pragma once

#include <memory>

#include "text/byte_source.h"

namespace bertpt::text {

std::unique_ptr<ByteSource> prefetch(std::unique_ptr<ByteSource> inner);

}  // namespace bertpt::text
