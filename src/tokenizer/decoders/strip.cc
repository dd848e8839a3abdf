#include "tokenizer/decoders/strip.h"

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

std::shared_ptr<const StripDecoder> StripDecoder::from_json(const JsonFields& f) {
  const JsonValue content = f.value("content");
  const std::string c = content.str();
  size_t len = 0;
  if (!c.empty()) unicode::decode_utf8(reinterpret_cast<const unsigned char*>(c.data()), c.size(), len);
  if (c.empty() || len != c.size()) content.fail("is '" + c + "', expected one character");
  return std::make_shared<const StripDecoder>(c, f.u64("start"), f.u64("stop"));
}

void StripDecoder::decode_chain(std::vector<std::string>& tokens) const {
  const std::string& c = content_;
  for (std::string& token : tokens) {
    size_t begin = 0;
    for (size_t n = 0; n < start_ && token.compare(begin, c.size(), c) == 0 && begin < token.size(); ++n) {
      begin += c.size();
    }
    size_t end = token.size();
    for (size_t n = 0; n < stop_ && end >= c.size() + begin && token.compare(end - c.size(), c.size(), c) == 0; ++n) {
      end -= c.size();
    }
    token = end > begin ? token.substr(begin, end - begin) : std::string();
  }
}

}  // namespace bertpt::tokenizer
