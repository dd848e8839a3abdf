// bzip2 files decompressed on several threads: one-stream files (what `bzip2 file` writes, e.g.
// Wikipedia's `*-pages-articles.xml.bz2`) as well as multistream ones (`*-pages-articles-multistream
// .xml.bz2`, pbzip2's output). Every bzip2 block starts at the 48-bit magic 0x314159265359 at any bit
// offset and decodes on its own, so the file is read in order by one thread at a time and cut at a
// block magic into units of about 1 MiB compressed; a worker finds the block (and end-of-stream)
// magics of its unit with a sliding 64-bit window and decodes each block with libbz2 as a standalone
// one-block stream, which checks the block's CRC. `threads` workers decode units in parallel and the
// bytes come out in file order, the same as a one-thread decoder gives; each stream's combined CRC is
// checked against the block CRCs. The magic can also occur inside compressed data (about once in 2^48
// bit positions): a candidate block that does not decode is merged with the next one, also across
// units (then decoded again in order by the reading thread).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "text/byte_source.h"

namespace bertpt::text {

// A parallel decoder of the bzip2 file `path` when `threads` >= 2; null otherwise (decode it on one
// thread). `unit_bytes`: compressed bytes per unit of work (tests make it small). Throws BadInput when
// the file cannot be opened. A truncated or corrupt file throws BadInput naming the file and the
// compressed byte offset of the damaged block (or stream header or end), after the bytes before it.
std::unique_ptr<ByteSource> open_multistream_bzip2(const std::string& path, size_t threads,
                                                   size_t unit_bytes = size_t{1} << 20);

}  // namespace bertpt::text
