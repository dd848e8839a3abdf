// torchrun's error file: torchelastic gives each worker TORCHELASTIC_ERROR_FILE and, when a worker
// fails, prints that file's message in its failure summary (`error_file: … message: …`) instead of
// `<N/A>`. The format is the one torch's own error handler writes
// (torch/distributed/elastic/multiprocessing/errors/error_handler.py in the wheel):
//   {"message": {"message": TEXT, "extraInfo": {"timestamp": "SECONDS"}}}
#pragma once

#include <string>

namespace bertpt::distributed {

// Writes `message` (bertpt's one-line error and its hint) to $TORCHELASTIC_ERROR_FILE when the
// variable is set; does nothing otherwise. Never throws: a failing write only loses the summary.
void write_elastic_error_file(const std::string& message);

}  // namespace bertpt::distributed
