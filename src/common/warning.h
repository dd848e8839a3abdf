// Warnings: what the user should know about a run that goes on anyway ("a symlink loop was not
// followed"). Library code calls warn(); the message goes to stderr as one line,
// "bertpt: warning: MESSAGE", or to a WarningCapture while one exists (tests).
#pragma once

#include <string>
#include <vector>

namespace bertpt {

void warn(const std::string& message);

// Collects the warnings of every thread instead of printing them, for its lifetime. Not nestable.
class WarningCapture {
 public:
  WarningCapture();
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

  std::vector<std::string> messages() const;
};

}  // namespace bertpt
