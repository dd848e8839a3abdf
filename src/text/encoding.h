// Text in encodings other than UTF-8, decoded to UTF-8 as it streams in, by glibc's iconv. Which
// encoding a file is in: the one the user names (--encoding latin1, cp1252, gb18030, shift_jis,
// utf-16 …; `iconv -l` lists them), else what its first bytes say — a byte-order mark (UTF-16 LE/BE,
// UTF-32 LE/BE; a UTF-8 mark is UTF-8) or, without one, an XML declaration's "<?" written in UTF-16/32
// (XML 1.0, appendix F) — else UTF-8, read as it is.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "text/byte_source.h"

namespace bertpt::text {

struct SniffedEncoding {
  std::string name;       // the iconv name, "" for UTF-8
  size_t mark_bytes = 0;  // the byte-order mark's length (dropped), 0 when none
};

// What the first bytes of a file (up to 4) say about its encoding.
SniffedEncoding sniff_encoding(std::string_view head);

// True for the names that mean UTF-8 itself ("UTF-8", "utf8", any case).
bool is_utf8_name(std::string_view name);

// Throws BadInput (naming `flag` and the value) when iconv cannot decode `name` to UTF-8.
void check_encoding_name(const std::string& name, const std::string& flag);

// `inner` decoded to UTF-8: from `encoding` when it is given and not UTF-8, else from what the first
// bytes say. Returned as it is (its first bytes replayed) when it is UTF-8 already. A sequence the
// encoding cannot decode, and a character cut by the end of the file, become U+FFFD, counted by
// undecodable(); `path` names the file in messages.
std::unique_ptr<ByteSource> decode_to_utf8(std::unique_ptr<ByteSource> inner, const std::string& encoding,
                                           const std::string& path);

}  // namespace bertpt::text
