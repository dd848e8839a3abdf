// JsonFields: typed reads of state files whose errors name the file and the field.
#include "common/json_fields.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt {
namespace {

using testing::error_of;

const nlohmann::json kDoc = nlohmann::json::parse(R"({
  "name": "x", "flag": true, "ratio": 0.5, "count": 7, "neg": -3,
  "ids": [1, 2, 3], "bad_ids": [1, "two"], "big_ids": [4294967296],
  "inner": {"rows": "12", "list": {}}
})");

TEST(JsonFields, ReadsEachType) {
  const JsonFields f(kDoc, "state.json");
  EXPECT_EQ(f.str("name"), "x");
  EXPECT_TRUE(f.boolean("flag"));
  EXPECT_EQ(f.number("ratio"), 0.5);
  EXPECT_EQ(f.u64("count"), 7u);
  EXPECT_EQ(f.i64("neg"), -3);
  EXPECT_EQ(f.u32_array("ids"), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(f.u64_array("big_ids"), (std::vector<uint64_t>{4294967296ull}));
  EXPECT_TRUE(f.has("inner"));
  EXPECT_FALSE(f.has("nope"));
}

TEST(JsonFields, WrongTypesNameTheFileAndTheFieldPath) {
  const JsonFields f(kDoc, "DATA/progress.json", "", "start over");
  EXPECT_EQ(error_of([&] { f.u64("name"); }),
            "DATA/progress.json: field \"name\" is a string, expected an unsigned integer");
  EXPECT_EQ(error_of([&] { f.u64("neg"); }), "DATA/progress.json: field \"neg\" is -3, expected an unsigned integer");
  EXPECT_EQ(error_of([&] { f.str("count"); }), "DATA/progress.json: field \"count\" is an integer, expected a string");
  EXPECT_EQ(error_of([&] { f.object("inner").u64("rows"); }),
            "DATA/progress.json: field \"inner.rows\" is a string, expected an unsigned integer");
  EXPECT_EQ(error_of([&] { f.object("inner").array("list"); }),
            "DATA/progress.json: field \"inner.list\" is an object, expected an array");
  EXPECT_EQ(error_of([&] { f.u32_array("bad_ids"); }),
            "DATA/progress.json: field \"bad_ids[1]\" is a string, expected an unsigned integer");
  EXPECT_EQ(error_of([&] { f.u32_array("big_ids"); }),
            "DATA/progress.json: field \"big_ids[0]\" is 4294967296, out of range");
  EXPECT_EQ(error_of([&] { f.boolean("missing"); }), "DATA/progress.json: field \"missing\" is missing");
  EXPECT_EQ(error_of([&] { f.object("name"); }), "DATA/progress.json: field \"name\" is a string, expected an object");
  EXPECT_EQ(error_of([&] { JsonFields(nlohmann::json::array(), "s.json"); }),
            "s.json: the top level is an array, expected an object");
  try {
    f.u64("name");
  } catch (const BadInput& e) {
    EXPECT_EQ(e.hint(), "start over");
  }
}

TEST(JsonFields, UnparsableFileNamesIt) {
  testing::TempDir dir;
  testing::write_file(dir.file("p.json"), "{\"a\": ");
  const std::string e = error_of([&] { read_json_file(dir.file("p.json")); });
  EXPECT_EQ(e.rfind(dir.file("p.json") + ": not valid JSON", 0), 0u) << e;
  EXPECT_THROW(read_json_file(dir.file("missing.json")), BadInput);
}

}  // namespace
}  // namespace bertpt
