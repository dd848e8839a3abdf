// The corpus input options shared by every command that reads text (corpus, tokenizer train,
// prepare): declared once here so their names, defaults and help never drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"

#include "text/corpus_reader.h"

namespace bertpt::cli {

struct CorpusFlags {
  std::vector<std::string> inputs;
  std::string format = "auto";
  std::string doc_per = "line";
  std::string text_field = "text";
  size_t max_line_bytes = 1 << 20;
  bool skip_bad_lines = false;
  std::vector<int64_t> namespaces = {0};
  size_t read_threads = 2;
  bool skip_bad_files = false;
  std::vector<std::string> encodings;  // --encoding NAME (every source) or SOURCE=NAME
  bool repair_invalid_utf8 = false;

  // Validates and converts; throws BadInput on unknown values.
  text::CorpusOptions to_options() const;
};

void add_corpus_flags(CLI::App* cmd, CorpusFlags& flags);

// A per-source flag: "--max-docs 1000" (every source) or "--max-docs SOURCE=1000", SOURCE being the
// --input string or its 1-based position; `parse` reads a value (std::invalid_argument: not a number).
// A SOURCE=VALUE overrides the value for every source, whatever their order; two different values for
// one source (SOURCE=, by name or position, or two for every source) are refused, naming both.
template <typename T>
std::vector<T> per_source_values(const std::vector<std::string>& specs, const std::vector<std::string>& inputs,
                                 T fallback, const char* flag, T (*parse)(const std::string&)) {
  std::vector<T> values(inputs.size(), fallback);
  std::vector<std::string> set_by(inputs.size());  // the SOURCE=VALUE spec that set each source
  std::string every;                               // the spec without SOURCE=, when one is given
  T every_value = fallback;
  auto conflict = [&](const std::string& source, const std::string& earlier, const std::string& later) {
    throw BadInput(std::string(flag) + " gives " + source + " two values: '" + earlier + "' and '" + later + "'",
                   std::string("give each source one: ") + flag + " SOURCE=VALUE once per source, " + flag +
                       " VALUE once for all the others");
  };
  for (const auto& spec : specs) {
    size_t eq = spec.rfind('=');
    std::string key = eq == std::string::npos ? "" : spec.substr(0, eq);
    std::string value = eq == std::string::npos ? spec : spec.substr(eq + 1);
    T v;
    try {
      v = parse(value);
    } catch (const std::invalid_argument&) {
      throw BadInput(std::string(flag) + " '" + spec + "': '" + value + "' is not a number",
                     std::string("use ") + flag + " N or " + flag + " SOURCE=N");
    } catch (const std::out_of_range&) {
      throw BadInput(std::string(flag) + " '" + spec + "': '" + value + "' is out of range",
                     std::string("use ") + flag + " N or " + flag + " SOURCE=N");
    }
    if (key.empty()) {
      if (!every.empty() && !(every_value == v)) conflict("every source", every, spec);
      every = spec;
      every_value = v;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (set_by[i].empty()) values[i] = v;
      }
      continue;
    }
    bool matched = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == key || std::to_string(i + 1) == key) {
        if (!set_by[i].empty() && !(values[i] == v)) {
          conflict("source " + std::to_string(i + 1) + " (" + inputs[i] + ")", set_by[i], spec);
        }
        values[i] = v;
        set_by[i] = spec;
        matched = true;
      }
    }
    if (!matched) {
      throw BadInput(std::string(flag) + " '" + spec + "': no --input is '" + key + "'",
                     "name the source exactly as given to --input, or by its position (1, 2, ...)");
    }
  }
  return values;
}

}  // namespace bertpt::cli
