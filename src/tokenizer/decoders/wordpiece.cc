#include "tokenizer/decoders/wordpiece.h"

namespace bertpt::tokenizer {
namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  size_t pos = s.find(from);
  if (pos == std::string::npos) return;
  std::string out;
  out.reserve(s.size());
  size_t last = 0;
  for (; pos != std::string::npos; pos = s.find(from, last)) {
    out.append(s, last, pos - last);
    out.append(to);
    last = pos + from.size();
  }
  out.append(s, last, std::string::npos);
  s.swap(out);
}

}  // namespace

std::string cleanup_decoded(std::string piece) {
  // Fast exit: every pattern starts with a space.
  if (piece.find(' ') == std::string::npos) return piece;
  static constexpr std::string_view kRules[][2] = {
      {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };
  for (const auto& rule : kRules) replace_all(piece, rule[0], rule[1]);
  return piece;
}

std::string clean_up_tokenization(std::string text) {
  static constexpr std::string_view kRules[][2] = {
      {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };
  for (const auto& rule : kRules) replace_all(text, rule[0], rule[1]);
  return text;
}

void wordpiece_decode(const std::vector<std::string_view>& tokens, const WordPieceDecoderOptions& options,
                      std::string& out) {
  std::string piece;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string_view t = tokens[i];
    piece.clear();
    if (i != 0) {
      if (!options.prefix.empty() && t.substr(0, options.prefix.size()) == options.prefix) {
        t.remove_prefix(options.prefix.size());
      } else if (options.prefix.empty()) {
        // HF: every string starts with "", and replacing the first "" removes nothing.
      } else {
        piece.push_back(' ');
      }
    }
    piece.append(t);
    if (options.cleanup) piece = cleanup_decoded(std::move(piece));
    out += piece;
  }
}

}  // namespace bertpt::tokenizer

namespace bertpt::tokenizer {

std::shared_ptr<const WordPieceDecoder> WordPieceDecoder::from_json(const JsonFields& f) {
  WordPieceDecoderOptions d;
  d.prefix = f.str_or("prefix", d.prefix);
  d.cleanup = f.boolean_or("cleanup", true);
  return std::make_shared<const WordPieceDecoder>(d);
}

void WordPieceDecoder::decode_chain(std::vector<std::string>& tokens) const {
  std::vector<std::string_view> views(tokens.begin(), tokens.end());
  std::string text;
  wordpiece_decode(views, options_, text);
  tokens.assign(1, std::move(text));
}

nlohmann::ordered_json WordPieceDecoder::to_json() const {
  return {{"type", "WordPiece"}, {"prefix", options_.prefix}, {"cleanup", options_.cleanup}};
}

}  // namespace bertpt::tokenizer
