// Entity-level precision, recall and F1 of sequence labelling (NER), with seqeval's conventions
// (seqeval 1.2.2, the default, lenient mode — what transformers' token-classification example reports):
//   entities are read from IOB2 / IOBES tags ("B-PER", "I-PER", "E-PER", "S-PER", "O") by seqeval's
//   get_entities: a chunk starts at B/S, at an I/E after O (or after E/S), or where the type changes;
//   it ends before B/S/O, after E/S, or where the type changes. A tag without a type ("B") has type "_".
//   An entity is (type, first token, last token); a predicted one is correct when the gold sequence has
//   the same. Micro averages: precision = correct / predicted, recall = correct / gold,
//   F1 = 2PR / (P + R), each 0 when its denominator is 0. Per type the same, with its gold support.
// No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bertpt::classify {

struct Entity {
  std::string type;
  int64_t first = 0, last = 0;  // token positions, inclusive
  bool operator<(const Entity& o) const;
  bool operator==(const Entity& o) const { return type == o.type && first == o.first && last == o.last; }
};

// The entities of one sentence's tags (seqeval's get_entities).
std::vector<Entity> tag_entities(const std::vector<std::string>& tags);

struct EntityScores {
  std::string type;  // "" for the micro average over all types
  double precision = 0, recall = 0, f1 = 0;
  int64_t support = 0, predicted = 0, correct = 0;
};

struct EntityMetrics {
  int64_t sentences = 0, tokens = 0;
  double token_accuracy = 0;           // tags equal, over all tokens
  EntityScores micro;                  // over every type
  std::vector<EntityScores> per_type;  // sorted by type
  nlohmann::json to_json() const;
};

// For people: the micro averages and word accuracy on one line, then a line per entity type.
std::string format_entity_table(const EntityMetrics& m);

// Gold and predicted tags per sentence, sentence by sentence of equal lengths (an internal error
// otherwise).
EntityMetrics entity_metrics(const std::vector<std::vector<std::string>>& gold,
                             const std::vector<std::vector<std::string>>& predicted);

}  // namespace bertpt::classify
