#include "common/json_fields.h"

#include <limits>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt {

namespace {

// The elements of the array `list`, unsigned integers that fit in `max`.
std::vector<uint64_t> unsigned_elements(const JsonValue& list, uint64_t max) {
  std::vector<uint64_t> out;
  out.reserve(list.array().size());
  for (size_t i = 0; i < list.array().size(); ++i) {
    const uint64_t v = list.element(i).u64();
    if (v > max) list.element(i).fail("is " + std::to_string(v) + ", out of range");
    out.push_back(v);
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

void JsonValue::fail(const std::string& problem, const std::string& hint) const {
  const std::string what = name_.empty() ? "the top level" : "field \"" + name_ + "\"";
  throw BadInput(file_ + ": " + what + " " + problem, hint.empty() ? hint_ : hint);
}

const nlohmann::json& JsonValue::typed(bool (nlohmann::json::*is_type)() const noexcept, const char* expected) const {
  if (!(value_.*is_type)()) fail("is " + json_type_in_words(value_) + ", expected " + expected);
  return value_;
}

std::string JsonValue::str() const { return typed(&nlohmann::json::is_string, "a string").get<std::string>(); }

bool JsonValue::boolean() const { return typed(&nlohmann::json::is_boolean, "a boolean").get<bool>(); }

double JsonValue::number() const { return typed(&nlohmann::json::is_number, "a number").get<double>(); }

int64_t JsonValue::i64() const {
  const nlohmann::json& v = typed(&nlohmann::json::is_number_integer, "an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    fail("is " + v.dump() + ", out of range");
  }
  return v.get<int64_t>();
}

uint64_t JsonValue::u64() const {
  const nlohmann::json& v = typed(&nlohmann::json::is_number_integer, "an unsigned integer");
  if (!v.is_number_unsigned() && v.get<int64_t>() < 0) fail("is " + v.dump() + ", expected an unsigned integer");
  return v.get<uint64_t>();
}

uint32_t JsonValue::u32() const {
  const uint64_t v = u64();
  if (v > std::numeric_limits<uint32_t>::max()) fail("is " + std::to_string(v) + ", out of range");
  return uint32_t(v);
}

JsonFields JsonValue::fields() const { return JsonFields(value_, file_, name_, hint_); }

const nlohmann::json& JsonValue::array() const { return typed(&nlohmann::json::is_array, "an array"); }

JsonValue JsonValue::element(size_t i) const {
  return JsonValue(array().at(i), file_, name_ + "[" + std::to_string(i) + "]", hint_);
}

std::string JsonFields::str(const char* key) const { return value(key).str(); }

bool JsonFields::boolean(const char* key) const { return value(key).boolean(); }

double JsonFields::number(const char* key) const { return value(key).number(); }

int64_t JsonFields::i64(const char* key) const { return value(key).i64(); }

uint64_t JsonFields::u64(const char* key) const { return value(key).u64(); }

uint32_t JsonFields::u32(const char* key) const { return value(key).u32(); }

std::vector<uint64_t> JsonFields::u64_array(const char* key) const {
  return unsigned_elements(value(key), std::numeric_limits<uint64_t>::max());
}

std::vector<uint32_t> JsonFields::u32_array(const char* key) const {
  std::vector<uint64_t> wide = unsigned_elements(value(key), std::numeric_limits<uint32_t>::max());
  return std::vector<uint32_t>(wide.begin(), wide.end());
}

JsonFields JsonFields::object(const char* key) const { return value(key).fields(); }

const nlohmann::json& JsonFields::array(const char* key) const { return value(key).array(); }

const nlohmann::json& JsonFields::any_object(const char* key) const {
  const JsonValue v = value(key);
  if (!v.json().is_object()) v.fail("is " + json_type_in_words(v.json()) + ", expected an object");
  return v.json();
}

std::optional<JsonValue> JsonFields::optional(const char* key) const {
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return std::nullopt;
  return JsonValue(*it, file_, name(key), hint_);
}

bool JsonFields::boolean_or(const char* key, bool fallback) const {
  const std::optional<JsonValue> v = optional(key);
  return v ? v->boolean() : fallback;
}

std::string JsonFields::str_or(const char* key, const std::string& fallback) const {
  const std::optional<JsonValue> v = optional(key);
  return v ? v->str() : fallback;
}

std::vector<std::pair<std::string, JsonValue>> JsonFields::entries() const {
  std::vector<std::pair<std::string, JsonValue>> out;
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    out.emplace_back(it.key(), JsonValue(it.value(), file_, name(it.key()), hint_));
  }
  return out;
}

}  // namespace bertpt
