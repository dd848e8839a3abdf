#include "io/tfevents.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#ifdef BERTPT_TEST_TFEVENTS_PROTO
#include <bertpt_proto/tensorboard_event.pb.h>
#endif

#include "common/error.h"
#include "common/test_util.h"
#include "io/tfrecord.h"

// The C++ half of the event file tests: names, framing, flushing, kill -9, errors, and the events
// parsed back with the same protos. tests/peer/tensorboard_reader.py reads the files with
// TensorBoard's own reader.

namespace bertpt::io {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_PROTOBUF()                                                                \
  do {                                                                                         \
    if (!tfevents_available()) BERTPT_SKIP_UNLESS_CI("this build has no protobuf (tfevents)"); \
  } while (0)

std::vector<std::string> records_of(const std::string& path, size_t* tail = nullptr) {
  TfRecords r = parse_tfrecords(testing::slurp(path), path);
  if (tail) *tail = r.truncated_tail;
  return r.records;
}

TEST(TfEvents, FileNamedAsTorchsSummaryWriterWithTheFileVersionFirst) {
  SKIP_WITHOUT_PROTOBUF();
  testing::TempDir d;
  std::string dir = d.file("run/runs");  // created with its parents
  double before = unix_time_now();
  TfEventsWriter first(dir);
  TfEventsWriter second(dir);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::smatch m;
  std::string name = fs::path(first.path()).filename().string();
  ASSERT_TRUE(std::regex_match(name, m, std::regex(R"(events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+))"))) << name;
  EXPECT_NEAR(std::stod(m[1]), before, 2.0);
  EXPECT_EQ(m[2], std::string(host));
  EXPECT_EQ(m[3], std::to_string(getpid()));
  std::string n = m[4];
  EXPECT_EQ(fs::path(first.path()).parent_path(), fs::path(dir));
  EXPECT_TRUE(second.path().ends_with("." + std::to_string(std::stoi(n) + 1))) << second.path();

  // The first record is on disk as soon as the writer exists.
  auto records = records_of(first.path());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_NE(records[0].find("brain.Event:2"), std::string::npos);
#ifdef BERTPT_TEST_TFEVENTS_PROTO
  bertpt::tb::Event e;
  ASSERT_TRUE(e.ParseFromString(records[0]));
  EXPECT_EQ(e.file_version(), "brain.Event:2");
  EXPECT_EQ(e.step(), 0);
  EXPECT_NEAR(e.wall_time(), before, 2.0);
#endif
}

TEST(TfEvents, RecordsReachTheFileAtFlushAndAtClose) {
  SKIP_WITHOUT_PROTOBUF();
  testing::TempDir d;
  std::string path;
  {
    TfEventsWriter w(d.path());
    path = w.path();
    w.add_scalar("train/loss", 2.5, 10, 1000.0);
    w.add_scalar("train/learning_rate", 1e-4, 10, 1000.0);
    EXPECT_EQ(records_of(path).size(), 1u);  // pending until flushed
    w.flush();
    EXPECT_EQ(records_of(path).size(), 3u);
    w.add_text("args", "| a | b |", 10, 1000.0);
  }  // the destructor flushes
  EXPECT_EQ(records_of(path).size(), 4u);

  TfEventsWriter w(d.path());
  w.add_scalar("x", 1, 1, 1.0);
  w.close();
  w.close();  // again: nothing
  EXPECT_EQ(records_of(w.path()).size(), 2u);
  EXPECT_THROW(w.add_scalar("x", 1, 2, 1.0), Error);
}

#ifdef BERTPT_TEST_TFEVENTS_PROTO
TEST(TfEvents, ScalarTextAndRestartEventsAsTensorBoardWritesThem) {
  testing::TempDir d;
  TfEventsOptions options;
  options.purge_step = 301;
  TfEventsWriter w(d.path(), options);
  w.add_scalar("train/loss", 2.25, 301, 1234.5);
  w.add_scalar("eval/accuracy", std::nan(""), 302, 1235.0);
  w.add_text("hyperparameters", "**lr** = 1e-4\n", 0, 1236.0);
  w.close();
  auto records = records_of(w.path());
  ASSERT_EQ(records.size(), 5u);
  std::vector<tb::Event> events(records.size());
  for (size_t i = 0; i < records.size(); ++i) ASSERT_TRUE(events[i].ParseFromString(records[i])) << i;
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[0].step(), 301);
  EXPECT_EQ(events[1].session_log().status(), tb::SessionLog::START);
  EXPECT_EQ(events[1].step(), 301);

  const tb::Event& loss = events[2];
  EXPECT_EQ(loss.step(), 301);
  EXPECT_EQ(loss.wall_time(), 1234.5);
  ASSERT_EQ(loss.summary().value_size(), 1);
  EXPECT_EQ(loss.summary().value(0).tag(), "train/loss");
  EXPECT_EQ(loss.summary().value(0).simple_value(), 2.25f);
  EXPECT_FALSE(loss.summary().value(0).has_metadata());
  EXPECT_TRUE(std::isnan(events[3].summary().value(0).simple_value()));

  const tb::Summary::Value& text = events[4].summary().value(0);
  EXPECT_EQ(text.tag(), "hyperparameters");
  EXPECT_EQ(text.metadata().plugin_data().plugin_name(), "text");
  EXPECT_EQ(text.metadata().plugin_data().content(), "");
  EXPECT_EQ(text.tensor().dtype(), tb::DT_STRING);
  EXPECT_TRUE(text.tensor().has_tensor_shape());
  EXPECT_EQ(text.tensor().tensor_shape().dim_size(), 0);  // a scalar
  ASSERT_EQ(text.tensor().string_val_size(), 1);
  EXPECT_EQ(text.tensor().string_val(0), "**lr** = 1e-4\n");
}
#endif

// A writer killed with SIGKILL at any moment leaves complete records: everything flushed is there,
// nothing pending is, and no partial record follows.
TEST(TfEvents, KillNineLeavesTheFlushedRecordsReadable) {
  SKIP_WITHOUT_PROTOBUF();
  testing::TempDir d;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TfEventsWriter w(d.path());
    for (int step = 1; step <= 50; ++step) {
      w.add_scalar("train/loss", 10.0 / step, step);
      w.add_text("note", std::string(1000, 'n'), step);
      w.flush();
    }
    w.add_scalar("train/loss", 0.0, 51);  // pending when killed
    kill(getpid(), SIGKILL);
    _exit(3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(d.path())) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  size_t tail = 99;
  EXPECT_EQ(records_of(files[0].string(), &tail).size(), 1u + 100u);
  EXPECT_EQ(tail, 0u);
}

TEST(TfEvents, FailedWriteNamesTheFileAndStopsTheWriter) {
  SKIP_WITHOUT_PROTOBUF();
  testing::TempDir d;
  TfEventsWriter w(d.path());
  // A file size limit makes write() fail with EFBIG (SIGXFSZ ignored), as a full disk would.
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  w.add_text("big", std::string(10000, 'x'), 1);
  std::string message = testing::error_of([&] { w.flush(); });
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("cannot write the TensorBoard event file " + w.path() + ": "), std::string::npos) << message;
  EXPECT_EQ(testing::error_of([&] { w.add_scalar("x", 1, 2); }), message);
  EXPECT_EQ(testing::error_of([&] { w.close(); }), message);
}

TEST(TfEvents, UncreatableDirectoryIsABadInputNamingIt) {
  SKIP_WITHOUT_PROTOBUF();
  testing::TempDir d;
  testing::write_file(d.file("plain"), "a file, not a directory");
  std::string message = testing::error_of([&] { TfEventsWriter w(d.file("plain/runs")); });
  EXPECT_NE(message.find("cannot create the TensorBoard directory " + d.file("plain/runs")), std::string::npos)
      << message;
}

TEST(TfEvents, AWriterOpensExactlyWhenTheBuildHasProtobuf) {
  testing::TempDir d;
  if (tfevents_available()) {  // CI's build (CMake refuses a CI build without protobuf)
    EXPECT_NO_THROW(TfEventsWriter w(d.file("runs")));
    EXPECT_TRUE(fs::exists(d.file("runs")));
    return;
  }
  std::string message = testing::error_of([&] { TfEventsWriter w(d.file("runs")); });
  EXPECT_NE(message.find("built without protobuf"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(d.file("runs")));
}

}  // namespace
}  // namespace bertpt::io
