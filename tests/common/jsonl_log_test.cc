// JsonlLog: the metrics.jsonl appender of train and finetune.
#include "common/jsonl_log.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt {
namespace {

TEST(JsonlLog, AppendsOneFlushedLinePerRecord) {
  testing::TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  testing::write_file(path, "{\"step\":1}\n");  // a resumed run appends after what is there
  JsonlLog log(path, true);
  log.write({{"step", 2}, {"loss", 1.5}});
  // Visible before the log is closed: flushed per record.
  EXPECT_EQ(testing::slurp(path), "{\"step\":1}\n{\"loss\":1.5,\"step\":2}\n");
  log.write({{"step", 3}});
  EXPECT_EQ(testing::slurp(path), "{\"step\":1}\n{\"loss\":1.5,\"step\":2}\n{\"step\":3}\n");
}

TEST(JsonlLog, ADisabledLogWritesNothing) {
  testing::TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  {
    JsonlLog log(path, false);
    log.write({{"step", 1}});
  }
  EXPECT_THROW(testing::slurp(path), std::exception);  // not even created
}

TEST(JsonlLog, AnUnwritablePathIsBadInputNamingIt) {
  testing::TempDir dir;
  const std::string path = dir.file("no/such/dir/metrics.jsonl");
  try {
    JsonlLog log(path, true);
    FAIL() << "expected BadInput";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(JsonlLog, AFailedWriteIsBadInputNotASilentEnd) {
  JsonlLog log("/dev/full", true);  // every write fails with ENOSPC, as on a full disk
  try {
    log.write({{"step", 1}});
    FAIL() << "no error";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write /dev/full"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bertpt
