// Hugging Face's WordPiece decoder (docs/hf-compat.md): tokens back to text. Every token
// after the first loses its "##" prefix and is glued on, or gets a leading space; with cleanup, each
// token (with its leading space) then goes through HF's clean-up replacements, in HF's order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/decoders/decoder.h"

namespace bertpt::tokenizer {

struct WordPieceDecoderOptions {
  std::string prefix = "##";
  bool cleanup = true;
};

class WordPieceDecoder final : public Decoder {
 public:
  explicit WordPieceDecoder(WordPieceDecoderOptions options = {}) : options_(std::move(options)) {}
  static std::shared_ptr<const WordPieceDecoder> from_json(const JsonFields& f);
  void decode_chain(std::vector<std::string>& tokens) const override;
  nlohmann::ordered_json to_json() const override;
  const WordPieceDecoderOptions& options() const { return options_; }

 private:
  WordPieceDecoderOptions options_;
};

// Appends the decoded text of `tokens` to `out`.
void wordpiece_decode(const std::vector<std::string_view>& tokens, const WordPieceDecoderOptions& options,
                      std::string& out);

// HF's clean-up of one decoded piece: " ." -> ".", " ?" -> "?", " !" -> "!", " ," -> ",",
// " ' " -> "'", " n't" -> "n't", " 'm" -> "'m", " do not" -> " don't", " 's" -> "'s",
// " 've" -> "'ve", " 're" -> "'re" (each replacement over the whole piece, in this order).
std::string cleanup_decoded(std::string piece);

// transformers' PreTrainedTokenizerBase.clean_up_tokenization, which Python's tokenizer.decode()
// (and so the fill-mask pipeline) applies to the whole decoded string on top of the decoder above
// when tokenizer_config.json says "clean_up_tokenization_spaces": true. Unlike the per-token
// clean-up it sees across token boundaries: "don ' t" -> "don't". Rules, in order: " ." " ?" " !"
// " ," " ' " " n't" " 'm" " 's" " 've" " 're".
std::string clean_up_tokenization(std::string text);

}  // namespace bertpt::tokenizer
