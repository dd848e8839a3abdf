#include "classify/entity_metrics.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "common/error.h"

namespace bertpt::classify {

namespace {

// The tag letter and the type of a prefix-style tag: "B-PER" -> ('B', "PER"), "O" -> ('O', "_").
std::pair<char, std::string> split_tag(const std::string& tag) {
  const char letter = tag.empty() ? 'O' : tag[0];
  const std::string rest = tag.size() > 1 ? tag.substr(1) : "";
  const size_t dash = rest.find('-');
  std::string type = dash == std::string::npos ? rest : rest.substr(dash + 1);  // split('-', 1)[-1]
  return {letter, type.empty() ? "_" : type};
}

bool end_of_chunk(char prev, char tag, const std::string& prev_type, const std::string& type) {
  if (prev == 'E' || prev == 'S') return true;
  if ((prev == 'B' || prev == 'I') && (tag == 'B' || tag == 'S' || tag == 'O')) return true;
  return prev != 'O' && prev != '.' && prev_type != type;
}

bool start_of_chunk(char prev, char tag, const std::string& prev_type, const std::string& type) {
  if (tag == 'B' || tag == 'S') return true;
  if ((prev == 'E' || prev == 'S' || prev == 'O') && (tag == 'E' || tag == 'I')) return true;
  return tag != 'O' && tag != '.' && prev_type != type;
}

// sklearn / seqeval's zero_division: 0.
double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

void finish(EntityScores& s) {
  s.precision = ratio(double(s.correct), double(s.predicted));
  s.recall = ratio(double(s.correct), double(s.support));
  s.f1 = ratio(2 * s.precision * s.recall, s.precision + s.recall);
}

nlohmann::json scores_json(const EntityScores& s) {
  return {{"precision", s.precision}, {"recall", s.recall},       {"f1", s.f1},
          {"support", s.support},     {"predicted", s.predicted}, {"correct", s.correct}};
}

}  // namespace

bool Entity::operator<(const Entity& o) const {
  return type != o.type ? type < o.type : first != o.first ? first < o.first : last < o.last;
}

std::vector<Entity> tag_entities(const std::vector<std::string>& tags) {
  std::vector<Entity> chunks;
  char prev = 'O';
  std::string prev_type;  // seqeval starts with '' (no type), not "_"
  int64_t begin = 0;
  for (size_t i = 0; i <= tags.size(); ++i) {
    const auto [tag, type] = i < tags.size() ? split_tag(tags[i]) : std::pair<char, std::string>{'O', "_"};
    if (end_of_chunk(prev, tag, prev_type, type)) chunks.push_back({prev_type, begin, int64_t(i) - 1});
    if (start_of_chunk(prev, tag, prev_type, type)) begin = int64_t(i);
    prev = tag;
    prev_type = type;
  }
  return chunks;
}

nlohmann::json EntityMetrics::to_json() const {
  nlohmann::json j = scores_json(micro);
  j["sentences"] = sentences;
  j["tokens"] = tokens;
  j["token_accuracy"] = token_accuracy;
  j["per_type"] = nlohmann::json::object();
  for (const EntityScores& s : per_type) j["per_type"][s.type] = scores_json(s);
  return j;
}

EntityMetrics entity_metrics(const std::vector<std::vector<std::string>>& gold,
                             const std::vector<std::vector<std::string>>& predicted) {
  if (gold.size() != predicted.size()) {
    throw Error(Error::Kind::Internal, "entity_metrics: " + std::to_string(gold.size()) + " gold sentences against " +
                                           std::to_string(predicted.size()) + " predicted");
  }
  EntityMetrics m;
  std::map<std::string, EntityScores> types;
  int64_t equal_tags = 0;
  for (size_t s = 0; s < gold.size(); ++s) {
    if (gold[s].size() != predicted[s].size()) {
      throw Error(Error::Kind::Internal, "entity_metrics: sentence " + std::to_string(s) + " has " +
                                             std::to_string(gold[s].size()) + " gold tags and " +
                                             std::to_string(predicted[s].size()) + " predicted");
    }
    ++m.sentences;
    m.tokens += int64_t(gold[s].size());
    for (size_t t = 0; t < gold[s].size(); ++t) equal_tags += gold[s][t] == predicted[s][t] ? 1 : 0;
    const std::vector<Entity> g = tag_entities(gold[s]), p = tag_entities(predicted[s]);
    const std::set<Entity> gold_set(g.begin(), g.end());
    for (const Entity& e : g) ++types[e.type].support;
    for (const Entity& e : p) {
      EntityScores& t = types[e.type];
      ++t.predicted;
      t.correct += gold_set.count(e) ? 1 : 0;
    }
  }
  for (auto& [type, scores] : types) {
    scores.type = type;
    finish(scores);
    m.micro.support += scores.support, m.micro.predicted += scores.predicted, m.micro.correct += scores.correct;
    m.per_type.push_back(scores);
  }
  finish(m.micro);
  m.token_accuracy = ratio(double(equal_tags), double(m.tokens));
  return m;
}

std::string format_entity_table(const EntityMetrics& m) {
  char line[256];
  std::snprintf(line, sizeof line,
                "entities: precision %.4f | recall %.4f | F1 %.4f (%lld gold); words: accuracy %.4f\n",
                m.micro.precision, m.micro.recall, m.micro.f1, (long long)m.micro.support, m.token_accuracy);
  std::string table = line;
  for (const EntityScores& t : m.per_type) {
    std::snprintf(line, sizeof line, "  %-20s precision %.4f | recall %.4f | F1 %.4f | %lld gold\n", t.type.c_str(),
                  t.precision, t.recall, t.f1, (long long)t.support);
    table += line;
  }
  return table;
}

}  // namespace bertpt::classify
