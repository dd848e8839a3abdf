// The models bertpt reads from tokenizer.json, by "type", and what every model's file shares. A new
// model is a file of this folder and a line of kReaders.
#include "common/error.h"
#include "tokenizer/component_reader.h"
#include "tokenizer/models/bpe.h"
#include "tokenizer/models/model.h"
#include "tokenizer/models/unigram.h"
#include "tokenizer/models/wordpiece.h"

namespace bertpt::tokenizer {
namespace {

template <class T>
ModelPtr read(const JsonFields& f) {
  return T::from_json(f);
}

const ComponentReader<ModelPtr> kReaders[] = {
    {"WordPiece", read<WordPiece>},
    {"Unigram", read<Unigram>},
    {"BPE", read<Bpe>},
};

}  // namespace

ModelPtr read_model(const JsonValue& value) { return read_component(value, kReaders, "a model"); }

uint32_t json_token_id(const JsonValue& v) {
  const uint64_t id = v.u64();
  if (id > 0xFFFFFFFEull) v.fail("is " + std::to_string(id) + ", out of range");
  return uint32_t(id);
}

nlohmann::ordered_json vocab_json(const Model& model) {
  // Tokens of a vocabulary are unique, so they are appended directly: ordered_json's operator[]
  // searches linearly, which made saving a 30k vocabulary take about a second.
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  auto& entries = static_cast<std::vector<std::pair<const std::string, nlohmann::ordered_json>>&>(
      vocab.get_ref<nlohmann::ordered_json::object_t&>());
  entries.reserve(model.id_limit());
  for (uint32_t id = 0; id < model.id_limit(); ++id) {
    if (model.has_id(id)) entries.emplace_back(std::string(model.id_to_token(id)), id);
  }
  return vocab;
}

}  // namespace bertpt::tokenizer
