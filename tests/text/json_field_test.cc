#include "text/json_field.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace bertpt::text {
namespace {

JsonFieldStatus get(std::string_view line, std::string& out, std::string_view field = "text") {
  return extract_json_string_field(line, field, out).status;
}

TEST(JsonField, DecodesEscapesLikeAFullParser) {
  // Peer: nlohmann::json decodes the same lines; our extractor must agree on every value.
  const char* lines[] = {
      R"({"text": "plain"})",
      R"({"id": 1, "url": "https://x", "title": "T", "text": "a\nb\t\"q\" \\ \/ \u00e9 \u4e2d \ud83d\ude00"})",
      R"({"meta": {"text": "nested, not this"}, "text": "top level"})",
      R"({"list": [1, 2.5e-3, true, false, null, {"a": [[]]}], "text": "after a list"})",
      R"(  {"text":"spaces around"}  )",
      R"({"text": "first", "text": "last wins"})",
  };
  for (const char* line : lines) {
    std::string out;
    ASSERT_EQ(get(line, out), JsonFieldStatus::Found) << line;
    EXPECT_EQ(out, nlohmann::json::parse(line)["text"].get<std::string>()) << line;
  }
}

TEST(JsonField, MissingAndNonStringFields) {
  std::string out;
  EXPECT_EQ(get(R"({"body": "x"})", out), JsonFieldStatus::Missing);
  EXPECT_EQ(get(R"({})", out), JsonFieldStatus::Missing);
  EXPECT_EQ(get(R"({"text": 5})", out), JsonFieldStatus::NotString);
  EXPECT_EQ(get(R"({"text": null})", out), JsonFieldStatus::NotString);
  EXPECT_EQ(get(R"({"body": "x", "title": "y"})", out, "title"), JsonFieldStatus::Found);
  EXPECT_EQ(out, "y");
}

TEST(JsonField, MalformedLinesSayWhereTheyBreak) {
  const char* bad[] = {"not json",
                       "[1, 2]",
                       R"({"text": "unterminated)",
                       R"({"text" "x"})",
                       R"({"text": "x",})",
                       R"({"text": "x"} trailing)",
                       R"({"text": "\q"})",
                       R"({"a": tru})",
                       R"({"a": 1.})",
                       ""};
  for (const char* line : bad) {
    std::string out;
    auto r = extract_json_string_field(line, "text", out);
    EXPECT_EQ(r.status, JsonFieldStatus::Malformed) << line;
    EXPECT_NE(r.error.find("at byte"), std::string::npos) << r.error;
  }
}

TEST(JsonField, LoneSurrogatesBecomeReplacementCharacters) {
  std::string out;
  auto r = extract_json_string_field(R"({"text": "a\ud800b\udc00"})", "text", out);
  ASSERT_EQ(r.status, JsonFieldStatus::Found);
  EXPECT_EQ(out,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(r.bad_surrogates, 2u);
}

TEST(JsonField, DeepNestingIsRejectedNotACrash) {
  std::string line = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  std::string out;
  EXPECT_EQ(get(line, out), JsonFieldStatus::Malformed);
}

}  // namespace
}  // namespace bertpt::text
