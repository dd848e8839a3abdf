#include "tokenizer/decoders/metaspace.h"

namespace bertpt::tokenizer {

void MetaspaceDecoder::decode_chain(std::vector<std::string>& tokens) const {
  const std::string& rep = options_.replacement;
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string& token = tokens[i];
    if (token.find(rep) == std::string::npos) continue;
    const bool drop = i == 0 && options_.prepend_scheme != PrependScheme::kNever;
    out.clear();
    size_t last = 0;
    for (size_t at = token.find(rep); at != std::string::npos; at = token.find(rep, last)) {
      out.append(token, last, at - last);
      if (!drop) out.push_back(' ');
      last = at + rep.size();
    }
    out.append(token, last, std::string::npos);
    token.swap(out);
  }
}

}  // namespace bertpt::tokenizer
