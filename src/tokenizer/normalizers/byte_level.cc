#include "tokenizer/normalizers/byte_level.h"

#include "tokenizer/pre_tokenizers/byte_level.h"

namespace bertpt::tokenizer {

void ByteLevelNormalizer::normalize(std::string_view text, std::string& out) const {
  ByteLevel::append_byte_level(text, out);
}

}  // namespace bertpt::tokenizer
