// TensorBoard event files, written as the Hugging Face Trainer's writer (torch's SummaryWriter)
// writes them, for `train` and `finetune`; TensorBoard shows the files of one directory as one run.
// The file is a TFRecord file (io/tfrecord.h) of serialized `Event` protos, TensorBoard's own,
// compiled from proto/tensorboard_event.proto with Debian's protobuf at build time. A build without
// protobuf has this API but cannot open a writer (tfevents_available() says so). Plain C++.
//
// Durability: each flush() writes the records added since the previous one with one write() call,
// so a process killed at any point (kill -9) leaves complete records, followed at worst by one
// incomplete record, which TensorBoard's reader skips. Not thread-safe: one writer per process
// (rank 0), used from one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bertpt::io {

// Whether this build writes event files (it was built with protobuf).
bool tfevents_available();

// Seconds since the Unix epoch, with sub-second precision: an event's default wall time.
double unix_time_now();

struct TfEventsOptions {
  // Set when a run resumes: TensorBoard then hides what the directory's earlier files recorded at
  // steps >= purge_step (written as torch's SummaryWriter(purge_step=...) does: a SessionLog START
  // at that step). A run resumed from its checkpoint at step S passes S + 1, so that the steps it
  // replays are not shown twice.
  std::optional<int64_t> purge_step;
};

class TfEventsWriter {
 public:
  // Creates `dir` (with its parents) and in it a new file
  //   events.out.tfevents.<unix time, 10 digits>.<hostname>.<pid>.<n>
  // (n counts the writers this process has opened, from 0: torch's SummaryWriter's name), and
  // writes and flushes its first record, file_version "brain.Event:2". Throws BadInput naming the
  // file when it cannot be created, and when this build has no protobuf (see tfevents_available).
  explicit TfEventsWriter(const std::string& dir, const TfEventsOptions& options = {});
  // Flushes what is pending and closes the file. A failure here is not reported: call close() to
  // see it.
  ~TfEventsWriter();
  TfEventsWriter(const TfEventsWriter&) = delete;
  TfEventsWriter& operator=(const TfEventsWriter&) = delete;

  // A scalar under `tag` at `step` (TensorBoard's x axis); stored as float32, as TensorBoard does.
  // NaN and infinities are kept.
  void add_scalar(std::string_view tag, double value, int64_t step, double wall_time = unix_time_now());
  // Markdown for TensorBoard's text plugin, written as tensorboard.summary.text writes it: a scalar
  // DT_STRING tensor with plugin "text".
  void add_text(std::string_view tag, std::string_view markdown, int64_t step, double wall_time = unix_time_now());

  // Writes the records added since the last flush with one write() call. Records are also flushed
  // by themselves once more than 1 MiB is pending. Throws BadInput naming the file when the write
  // fails; the writer then refuses further records (the file keeps what was written before).
  void flush();
  // Flushes and closes the file; later calls do nothing. Throws as flush() does.
  void close();

  // The event file's path.
  const std::string& path() const { return path_; }

 private:
  void append(const std::string& event);
  void check_usable() const;

  std::string path_;
  int fd_ = -1;
  std::string pending_;  // framed records not yet written
  std::string error_;    // set by a failed write; every later call throws it
};

}  // namespace bertpt::io
