// Typed reading of the JSON files bertpt keeps state in (DATA/manifest.json, DATA/progress.json, ...):
// a missing field or one of the wrong type is a BadInput that names the file and the field by its
// path from the root — `DATA/progress.json: field "splits.train.packer.carry[3]" is a string,
// expected an unsigned integer` — never a raw JSON library exception.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bertpt {

// "an integer", "a string", "null", ... for "is a string, expected an unsigned integer".
std::string json_type_in_words(const nlohmann::json& j);

// Parses the file at `path`; BadInput naming it when it cannot be read or is not JSON.
nlohmann::json read_json_file(const std::string& path, const std::string& hint = {});

class JsonFields;

// One value of `file` with its path from the root (`name`: "model.vocab.the", "added_tokens[2]"), for
// values not reached by a fixed key: array elements, the entries of a map, optional fields.
class JsonValue {
 public:
  JsonValue(const nlohmann::json& value, std::string file, std::string name, std::string hint = {})
      : value_(value), file_(std::move(file)), name_(std::move(name)), hint_(std::move(hint)) {}

  std::string str() const;
  bool boolean() const;
  double number() const;
  int64_t i64() const;
  uint64_t u64() const;
  uint32_t u32() const;
  JsonFields fields() const;  // the value as an object
  const nlohmann::json& array() const;
  JsonValue element(size_t i) const;  // of an array: name[i]
  const nlohmann::json& json() const { return value_; }
  const std::string& name() const { return name_; }
  // BadInput `FILE: field "NAME" PROBLEM` (`FILE: the top level PROBLEM` for the root).
  [[noreturn]] void fail(const std::string& problem, const std::string& hint = {}) const;

 private:
  const nlohmann::json& typed(bool (nlohmann::json::*is_type)() const noexcept, const char* expected) const;

  const nlohmann::json& value_;
  std::string file_;
  std::string name_;
  std::string hint_;
};

// The fields of one JSON object of `file`. `prefix` is the object's own path from the root ("" for
// the root); `hint` goes with every error.
class JsonFields {
 public:
  // Throws when `object` is not an object.
  JsonFields(const nlohmann::json& object, std::string file, std::string prefix = {}, std::string hint = {});

  std::string str(const char* key) const;
  bool boolean(const char* key) const;
  double number(const char* key) const;
  int64_t i64(const char* key) const;
  uint64_t u64(const char* key) const;
  uint32_t u32(const char* key) const;
  std::vector<uint64_t> u64_array(const char* key) const;
  std::vector<uint32_t> u32_array(const char* key) const;
  JsonFields object(const char* key) const;
  const nlohmann::json& array(const char* key) const;
  const nlohmann::json& any_object(const char* key) const;
  // The field whatever its type.
  const nlohmann::json& any(const char* key) const;
  bool has(const char* key) const { return object_.contains(key); }
  // The field as a JsonValue; missing -> BadInput. optional(): nullopt when missing or null.
  JsonValue value(const char* key) const { return JsonValue(any(key), file_, name(key), hint_); }
  std::optional<JsonValue> optional(const char* key) const;
  // An optional field's value, `fallback` when missing or null (a present one must have the type).
  bool boolean_or(const char* key, bool fallback) const;
  std::string str_or(const char* key, const std::string& fallback) const;
  // The entries of the object, each as a JsonValue named by its key.
  std::vector<std::pair<std::string, JsonValue>> entries() const;

  // The field's path from the root, e.g. "splits.train.rows".
  std::string name(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  const std::string& file() const { return file_; }
  const std::string& hint() const { return hint_; }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

 private:
  const nlohmann::json& object_;
  std::string file_;
  std::string prefix_;
  std::string hint_;
};

}  // namespace bertpt
