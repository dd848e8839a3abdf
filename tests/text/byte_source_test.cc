#include "text/byte_source.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "common/error.h"
#include "common/stop_request.h"
#include "common/test_util.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

std::string read_all(const std::string& path) {
  auto src = open_byte_source(path);
  std::string out;
  char buf[777];  // odd size: exercises partial reads across decoder boundaries
  for (size_t n; (n = src->read(buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

std::string sample_text() {
  std::string s;
  for (int i = 0; i < 5000; ++i) s += "line " + std::to_string(i) + " with some text, ünïcödé and 中文\n";
  return s;
}

class CodecTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CodecTest, RoundTripsAndIsDetectedByMagicNotName) {
  TempDir dir;
  std::string text = sample_text();
  std::string path = dir.file("misleading-name.txt");  // the name says text; the bytes say otherwise
  write_file(path, compress(text, GetParam()));
  auto src = open_byte_source(path);
  EXPECT_EQ(compression_name(src->compression()), GetParam());
  EXPECT_EQ(read_all(path), text);
}

TEST_P(CodecTest, ConcatenatedStreamsAreReadToTheEnd) {
  TempDir dir;
  std::string a = sample_text(), b = "second member\n";
  write_file(dir.file("multi"), compress(a, GetParam()) + compress(b, GetParam()));
  EXPECT_EQ(read_all(dir.file("multi")), a + b);
}

TEST_P(CodecTest, TruncatedStreamIsABadInputNamingTheFile) {
  TempDir dir;
  std::string c = compress(sample_text(), GetParam());
  std::string path = dir.file("cut.bin");
  write_file(path, c.substr(0, c.size() / 2));
  try {
    read_all(path);
    FAIL() << "no error for a truncated " << GetParam() << " file";
  } catch (const BadInput& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("decompressed bytes"), std::string::npos) << msg;
  }
}

TEST_P(CodecTest, CorruptStreamIsABadInput) {
  TempDir dir;
  std::string c = compress(sample_text(), GetParam());
  for (size_t i = c.size() / 3; i < c.size() / 3 + 64 && i < c.size(); ++i) c[i] = char(c[i] ^ 0x5A);
  write_file(dir.file("corrupt"), c);
  EXPECT_THROW(read_all(dir.file("corrupt")), BadInput);
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest, ::testing::Values("gzip", "zstd", "xz", "bzip2"));

TEST(ByteSource, PlainFilesAndEmptyFiles) {
  TempDir dir;
  write_file(dir.file("plain"), "hello\n");
  write_file(dir.file("empty"), "");
  write_file(dir.file("tiny"), "\x1f");  // a lone gzip magic byte is just a byte
  EXPECT_EQ(read_all(dir.file("plain")), "hello\n");
  EXPECT_EQ(read_all(dir.file("empty")), "");
  EXPECT_EQ(read_all(dir.file("tiny")), "\x1f");
}

TEST(ByteSource, MissingFileNamesThePath) {
  try {
    open_byte_source("/nonexistent/bertpt/file.txt");
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/bertpt/file.txt"), std::string::npos);
  }
}

// A FIFO is opened before its writer comes, as `cat` opens it, and read once the writer writes; a writer
// that closes without writing gives an empty input.
TEST(ByteSource, AFifoIsReadOnceItsWriterComes) {
  TempDir dir;
  const std::string fifo = dir.file("late-writer");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    write_file(fifo, "late\n");
  });
  EXPECT_EQ(read_all(fifo), "late\n");
  writer.join();
  std::thread silent([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::close(::open(fifo.c_str(), O_WRONLY));
  });
  EXPECT_EQ(read_all(fifo), "");
  silent.join();
}

// `open` waits for its input on another thread; a stop request (what the CLI's SIGINT/SIGTERM handler
// makes) must end that wait within a few seconds with Interrupted naming `path` and `waiting`. `release`
// unblocks a wait that a stop request did not end, so that a failing test fails instead of hanging.
void expect_stop_ends_wait(const std::function<std::unique_ptr<ByteSource>()>& open,
                           const std::function<void()>& release, const std::string& path, const std::string& waiting) {
  clear_stop_request();
  auto opened = std::async(std::launch::async, open);
  EXPECT_EQ(opened.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout) << "it did not wait";
  request_stop(SIGTERM);
  const bool ended = opened.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!ended) release();
  clear_stop_request();
  ASSERT_TRUE(ended) << "a stop request did not end the wait for " << path;
  try {
    opened.get();
    FAIL() << "no Interrupted for " << path;
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_NE(std::string(e.what()).find(waiting + path), std::string::npos) << e.what();
  }
}

TEST(ByteSource, AStopRequestEndsTheWaitForAFifosWriter) {
  TempDir dir;
  const std::string fifo = dir.file("no-writer");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_stop_ends_wait([&] { return open_byte_source(fifo); },
                        [&] { ::close(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK)); }, fifo, "waiting for input from ");
}

TEST(ByteSource, AStopRequestEndsTheWaitForMoreInputFromAStream) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "abc", 3), 3);  // less than the sniffed head: the open reads on, and waits
  const std::string path = "/dev/fd/" + std::to_string(fds[0]);
  expect_stop_ends_wait([&] { return open_byte_source(path); }, [&] { ::close(fds[1]), fds[1] = -1; }, path,
                        "waiting for more input from ");
  if (fds[1] >= 0) ::close(fds[1]);
  ::close(fds[0]);
}

}  // namespace
}  // namespace bertpt::text
