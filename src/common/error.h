// Errors that cross module boundaries. Library code throws; only src/cli prints and picks exit codes:
// BadInput -> exit 1 (the user can fix it), anything else -> exit 2 (a bug or the environment).
#pragma once

#include <stdexcept>
#include <string>

namespace bertpt {

class Error : public std::runtime_error {
 public:
  enum class Kind { BadInput, Internal };

  Error(Kind kind, const std::string& message, std::string hint = {})
      : std::runtime_error(message), kind_(kind), hint_(std::move(hint)) {}

  Kind kind() const { return kind_; }
  // A short suggestion of what to do about it; may be empty.
  const std::string& hint() const { return hint_; }

 private:
  Kind kind_;
  std::string hint_;
};

// The user's input is wrong: a path, a file's contents, an option. The message names the file,
// line or field; the hint says what to do.
class BadInput : public Error {
 public:
  explicit BadInput(const std::string& message, std::string hint = {})
      : Error(Kind::BadInput, message, std::move(hint)) {}
};

// "path:line: message" — the one way a position in a file is written in messages.
std::string at(const std::string& path, unsigned long long line);

}  // namespace bertpt
