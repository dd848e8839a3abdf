#include "common/json_fields.h"

#include <limits>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt {

namespace {

// Unsigned elements of `list` (the field `name` of `fields`) that fit in `max`.
std::vector<uint64_t> unsigned_elements(const JsonFields& fields, const char* key, const nlohmann::json& list,
                                        uint64_t max) {
  std::vector<uint64_t> out;
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& v = list[i];
    const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
      fields.fail(at, "is " + (v.is_number_integer() ? v.dump() : json_type_in_words(v)) +
                          ", expected an unsigned integer");
    }
    if (v.get<uint64_t>() > max) fields.fail(at, "is " + v.dump() + ", out of range");
    out.push_back(v.get<uint64_t>());
  }
  return out;
}

}  // namespace

std::string json_type_in_words(const nlohmann::json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number_float()) return "a floating-point number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "null";
}

nlohmann::json read_json_file(const std::string& path, const std::string& hint) {
  const std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(path + ": not valid JSON (" + e.what() + ")", hint);
  }
}

JsonFields::JsonFields(const nlohmann::json& object, std::string file, std::string prefix, std::string hint)
    : object_(object), file_(std::move(file)), prefix_(std::move(prefix)), hint_(std::move(hint)) {
  if (!object_.is_object()) {
    std::string what = prefix_.empty() ? "the top level" : "field \"" + prefix_ + "\"";
    throw BadInput(file_ + ": " + what + " is " + json_type_in_words(object_) + ", expected an object", hint_);
  }
}

void JsonFields::fail(const std::string& key, const std::string& problem) const {
  throw BadInput(file_ + ": field \"" + name(key) + "\" " + problem, hint_);
}

const nlohmann::json& JsonFields::any(const char* key) const {
  auto it = object_.find(key);
  if (it == object_.end()) fail(key, "is missing");
  return *it;
}

const nlohmann::json& JsonFields::typed(const char* key, bool (nlohmann::json::*is_type)() const noexcept,
                                        const char* expected) const {
  const nlohmann::json& v = any(key);
  if (!(v.*is_type)()) fail(key, "is " + json_type_in_words(v) + ", expected " + expected);
  return v;
}

std::string JsonFields::str(const char* key) const {
  return typed(key, &nlohmann::json::is_string, "a string").get<std::string>();
}

bool JsonFields::boolean(const char* key) const {
  return typed(key, &nlohmann::json::is_boolean, "a boolean").get<bool>();
}

double JsonFields::number(const char* key) const {
  return typed(key, &nlohmann::json::is_number, "a number").get<double>();
}

int64_t JsonFields::i64(const char* key) const {
  const nlohmann::json& v = typed(key, &nlohmann::json::is_number_integer, "an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    fail(key, "is " + v.dump() + ", out of range");
  }
  return v.get<int64_t>();
}

uint64_t JsonFields::u64(const char* key) const {
  const nlohmann::json& v = typed(key, &nlohmann::json::is_number_integer, "an unsigned integer");
  if (!v.is_number_unsigned() && v.get<int64_t>() < 0) fail(key, "is " + v.dump() + ", expected an unsigned integer");
  return v.get<uint64_t>();
}

uint32_t JsonFields::u32(const char* key) const {
  uint64_t v = u64(key);
  if (v > std::numeric_limits<uint32_t>::max()) fail(key, "is " + std::to_string(v) + ", out of range");
  return uint32_t(v);
}

std::vector<uint64_t> JsonFields::u64_array(const char* key) const {
  return unsigned_elements(*this, key, array(key), std::numeric_limits<uint64_t>::max());
}

std::vector<uint32_t> JsonFields::u32_array(const char* key) const {
  std::vector<uint64_t> wide = unsigned_elements(*this, key, array(key), std::numeric_limits<uint32_t>::max());
  return std::vector<uint32_t>(wide.begin(), wide.end());
}

JsonFields JsonFields::object(const char* key) const { return JsonFields(any(key), file_, name(key), hint_); }

const nlohmann::json& JsonFields::array(const char* key) const {
  return typed(key, &nlohmann::json::is_array, "an array");
}

const nlohmann::json& JsonFields::any_object(const char* key) const {
  return typed(key, &nlohmann::json::is_object, "an object");
}

}  // namespace bertpt
