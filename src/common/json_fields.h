// Typed reading of the JSON files bertpt keeps state in (DATA/manifest.json, DATA/progress.json, ...):
// a missing field or one of the wrong type is a BadInput that names the file and the field by its
// path from the root — `DATA/progress.json: field "splits.train.packer.carry[3]" is a string,
// expected an unsigned integer` — never a raw JSON library exception.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bertpt {

// "an integer", "a string", "null", ... for "is a string, expected an unsigned integer".
std::string json_type_in_words(const nlohmann::json& j);

// Parses the file at `path`; BadInput naming it when it cannot be read or is not JSON.
nlohmann::json read_json_file(const std::string& path, const std::string& hint = {});

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

  // The field's path from the root, e.g. "splits.train.rows".
  std::string name(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  const std::string& file() const { return file_; }
  const std::string& hint() const { return hint_; }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

 private:
  const nlohmann::json& typed(const char* key, bool (nlohmann::json::*is_type)() const noexcept,
                              const char* expected) const;

  const nlohmann::json& object_;
  std::string file_;
  std::string prefix_;
  std::string hint_;
};

}  // namespace bertpt
