// Multistream bzip2 files — Wikipedia's `*-pages-articles-multistream.xml.bz2` (one bzip2 stream per 100
// pages), pbzip2's output — decompressed on several threads. Streams are independent, so the file is
// cut at stream starts into units of about 1 MiB compressed, read in order by one thread at a time and
// decompressed by `threads` workers in parallel; the bytes come out in file order, the same as a
// one-thread decoder gives.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "text/byte_source.h"

namespace bertpt::text {

// A parallel decoder of the bzip2 file `path` when a second stream starts within its first 4 MiB; null
// otherwise (one stream: it can only be decoded in order). Throws BadInput when the file cannot be
// opened. A truncated or corrupt stream throws BadInput naming the file and the stream's offset, after
// the bytes of the streams before it.
std::unique_ptr<ByteSource> open_multistream_bzip2(const std::string& path, size_t threads);

}  // namespace bertpt::text
