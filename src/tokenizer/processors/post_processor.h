// The post-processor of Hugging Face tokenizers (tokenizer.json "post_processor"): the special
// tokens around a sequence or a pair, and the segment (type) ids. Every kind bertpt reads is a
// template over the ids:
//   TemplateProcessing   as written ("[CLS] $A [SEP]", "$A:0 ... $B:1 ...");
//   BertProcessing       [CLS] A [SEP] / [CLS] A [SEP] B:1 [SEP]:1;
//   RobertaProcessing    <s> A </s> / <s> A </s> </s> B </s>, every type id 0 (processors/roberta.rs
//                        sets them to 0 even without special tokens);
//   ByteLevel            no tokens (it only trims offsets): A, or A B:1;
//   Sequence             its members in turn; at most one of them may add tokens.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json_fields.h"

namespace bertpt::tokenizer {

struct PostProcessor {
  struct Piece {
    bool is_sequence = false;  // $A / $B, else a special token
    int sequence = 0;          // 0 = A, 1 = B
    std::string special;       // the special token's name (key of special_tokens)
    uint32_t type_id = 0;
  };
  struct Special {
    std::string name;
    std::vector<uint32_t> ids;
    std::vector<std::string> tokens;
  };
  std::string type = "TemplateProcessing";
  std::vector<Piece> single;
  std::vector<Piece> pair;
  std::vector<Special> special_tokens;
  bool type_ids_zero = false;   // RobertaProcessing: every type id is 0, with or without special tokens
  nlohmann::ordered_json json;  // the object as read, written back as it was; null: built from the template

  const Special* find(const std::string& name) const;

  // The post-processor `value` describes. Throws BadInput naming the field for an unknown type, a
  // template naming a special token it does not define, or a malformed entry.
  static PostProcessor from_json(const JsonValue& value);
  // The template around a cls and a sep token: cls A sep, and for a pair BERT's cls A sep B:1 sep:1 or,
  // with `roberta`, cls A sep sep B sep with every type id 0 (type_ids_zero).
  static PostProcessor cls_sep(const std::string& cls, uint32_t cls_id, const std::string& sep, uint32_t sep_id,
                               bool roberta);
  // A TemplateProcessing `single`/`pair` over `special_tokens`.
  static PostProcessor from_template(std::vector<Piece> single, std::vector<Piece> pair,
                                     std::vector<Special> special_tokens);
  nlohmann::ordered_json to_json() const;
};

}  // namespace bertpt::tokenizer
