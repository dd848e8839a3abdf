// A failure that every rank of a job reaches together (ranks that disagree on the run's options, a
// node started for another world size): one rank prints it, the others throw this instead and exit
// with the same code without repeating the line (src/cli/main.cc).
#pragma once

#include "common/error.h"

namespace bertpt::distributed {

class ReportedElsewhere : public BadInput {
 public:
  explicit ReportedElsewhere(const BadInput& e) : BadInput(e.what(), e.hint()) {}
};

}  // namespace bertpt::distributed
