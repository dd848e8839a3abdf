// Reading one pipeline component of tokenizer.json by its "type": each folder (normalizers/,
// pre_tokenizers/, models/, decoders/) lists its kinds as a table of (type name, reader), and an
// unknown type is refused in one line that names the field and the kinds bertpt knows.
#pragma once

#include <string>
#include <utility>

#include "common/json_fields.h"

namespace bertpt::tokenizer {

template <class Ptr>
using ComponentReader = std::pair<const char*, Ptr (*)(const JsonFields&)>;

// The component `value` describes, read by the entry of `readers` that its "type" names; `kind`
// ("a normalizer") words the error.
template <class Ptr, size_t N>
Ptr read_component(const JsonValue& value, const ComponentReader<Ptr> (&readers)[N], const char* kind) {
  const JsonFields f = value.fields();
  const JsonValue type = f.value("type");
  const std::string name = type.str();
  std::string known;
  for (const auto& [type_name, reader] : readers) {
    if (name == type_name) return reader(f);
    known += known.empty() ? type_name : std::string(", ") + type_name;
  }
  type.fail("is '" + name + "', " + kind + " bertpt does not know (it reads " + known + ")",
            "was the file written by a newer tokenizers? Replace that component with one of these");
}

}  // namespace bertpt::tokenizer
