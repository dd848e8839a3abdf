// Reading labelled examples: JSONL / CSV / TSV, headers, compression, and the errors a user meets.
#include <gtest/gtest.h>

#include <functional>

#include "classify/labeled_data.h"
#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::classify {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write_file;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Checks the BadInput that `f` throws: its whole message, and a part of its hint.
void expect_bad_input(const std::function<void()>& f, const std::string& message, const std::string& hint_part) {
  try {
    f();
    ADD_FAILURE() << "no BadInput; expected: " << message;
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_TRUE(contains(e.hint(), hint_part)) << e.hint();
  }
}

LabeledDataOptions fields(const std::string& text, const std::string& pair, const std::string& label) {
  LabeledDataOptions o;
  o.text_field = text;
  o.text_pair_field = pair;
  o.label_field = label;
  return o;
}

TEST(LabeledData, JsonlStringIntegerAndBoolLabels) {
  TempDir tmp;
  const std::string path = tmp.file("train.jsonl");
  // BOM, CRLF, a blank line, and a final newline that starts no record.
  write_file(path,
             "\xEF\xBB\xBF{\"text\": \"good film\", \"label\": \"pos\"}\r\n"
             "\r\n"
             "{\"label\": 3, \"text\": \"caf\\u00e9 \\\"quoted\\\"\"}\n"
             "  \n"
             "{\"text\": \"\", \"label\": false, \"extra\": [1, 2]}\n");
  const auto ex = read_labeled_data(path, {}, true);
  ASSERT_EQ(ex.size(), 3u);
  EXPECT_EQ(ex[0].text, "good film");
  EXPECT_EQ(ex[0].label, "pos");
  EXPECT_EQ(ex[0].line, 1u);
  EXPECT_EQ(ex[1].text, "caf\xC3\xA9 \"quoted\"");
  EXPECT_EQ(ex[1].label, "3");
  EXPECT_EQ(ex[1].line, 3u);
  EXPECT_EQ(ex[2].text, "");
  EXPECT_EQ(ex[2].label, "false");
  EXPECT_EQ(ex[2].line, 5u);
  EXPECT_TRUE(ex[2].text_pair.empty());
}

TEST(LabeledData, JsonlPairs) {
  TempDir tmp;
  const std::string path = tmp.file("rte.json");
  write_file(path,
             "{\"premise\": \"A man sleeps.\", \"hypothesis\": \"Someone rests.\", \"y\": \"entailment\"}\n"
             "{\"premise\": \"It rains.\", \"hypothesis\": \"It is dry.\", \"y\": \"not_entailment\"}\n");
  const auto ex = read_labeled_data(path, fields("premise", "hypothesis", "y"), true);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].text, "A man sleeps.");
  EXPECT_EQ(ex[0].text_pair, "Someone rests.");
  EXPECT_EQ(ex[1].text_pair, "It is dry.");
  EXPECT_EQ(ex[1].label, "not_entailment");
}

TEST(LabeledData, LabelOptionalForPrediction) {
  TempDir tmp;
  const std::string path = tmp.file("input.jsonl");
  write_file(path, "{\"text\": \"a\"}\n{\"text\": \"b\", \"label\": \"pos\"}\n{\"text\": \"c\", \"label\": null}\n");
  const auto ex = read_labeled_data(path, {}, false);
  ASSERT_EQ(ex.size(), 3u);
  EXPECT_EQ(ex[0].label, "");
  EXPECT_EQ(ex[1].label, "pos");
  EXPECT_EQ(ex[2].label, "");
  // The same file for training: the first record lacks its label.
  expect_bad_input([&] { read_labeled_data(path, {}, true); }, path + ":1: no field 'label' (fields: text)",
                   "--label-field");

  // CSV without a label column: fine for prediction, an error for training.
  const std::string csv = tmp.file("input.csv");
  write_file(csv, "id,text\n1,hello\n");
  EXPECT_EQ(read_labeled_data(csv, {}, false).at(0).text, "hello");
  EXPECT_EQ(error_of([&] { read_labeled_data(csv, {}, true); }), csv + ":1: no field 'label' (fields: id, text)");
}

TEST(LabeledData, CsvQuotingLikeRfc4180) {
  TempDir tmp;
  const std::string path = tmp.file("train.csv");
  write_file(path,
             "text,label\r\n"
             "\"hello, world\",pos\r\n"
             "\"she said \"\"hi\"\"\",neg\r\n"
             "\"line one\r\nline two, still \"\"quoted\"\"\",pos\r\n"
             "\r\n"
             "plain text,\"neg\"\r\n"
             "\"\",pos\r\n"
             "a \"mid\" quote,neg");  // no final newline
  const auto ex = read_labeled_data(path, {}, true);
  ASSERT_EQ(ex.size(), 6u);
  EXPECT_EQ(ex[0].text, "hello, world");
  EXPECT_EQ(ex[0].line, 2u);
  EXPECT_EQ(ex[1].text, "she said \"hi\"");
  EXPECT_EQ(ex[1].label, "neg");
  EXPECT_EQ(ex[2].text, "line one\nline two, still \"quoted\"");
  EXPECT_EQ(ex[2].line, 4u);
  EXPECT_EQ(ex[3].text, "plain text");
  EXPECT_EQ(ex[3].label, "neg");
  EXPECT_EQ(ex[3].line, 7u);  // the record after the two-line one and the blank line
  EXPECT_EQ(ex[4].text, "");
  EXPECT_EQ(ex[5].text, "a \"mid\" quote");  // a quote inside an unquoted field is a character
}

TEST(LabeledData, CsvUnclosedQuoteNamesTheRecordStart) {
  TempDir tmp;
  const std::string path = tmp.file("bad.csv");
  write_file(path, "text,label\nok,pos\n\"never closed,neg\nmore\n");
  const std::string err = error_of([&] { read_labeled_data(path, {}, true); });
  EXPECT_TRUE(contains(err, path + ":3: a quoted field is still open")) << err;
}

TEST(LabeledData, TsvKeepsQuotesLiterally) {
  TempDir tmp;
  const std::string path = tmp.file("dev.tsv");
  write_file(path,
             "sentence\tlabel\n"
             "\"quoted\" start\t1\n"
             "a \"b, c\t0\n"
             "\n"
             "\"\t1\n");
  const auto ex = read_labeled_data(path, fields("sentence", "", "label"), true);
  ASSERT_EQ(ex.size(), 3u);
  EXPECT_EQ(ex[0].text, "\"quoted\" start");
  EXPECT_EQ(ex[1].text, "a \"b, c");
  EXPECT_EQ(ex[1].label, "0");
  EXPECT_EQ(ex[2].text, "\"");
  EXPECT_EQ(ex[2].line, 5u);
}

TEST(LabeledData, FieldsByHeaderNameOrIndex) {
  TempDir tmp;
  const std::string path = tmp.file("rte.tsv");
  write_file(path,
             "index\tsentence1\tsentence2\tlabel\n0\tP one.\tH one.\tentailment\n1\tP two.\tH two.\tnot_entailment\n");
  const auto by_name = read_labeled_data(path, fields("sentence1", "sentence2", "label"), true);
  const auto by_index = read_labeled_data(path, fields("1", "2", "3"), true);
  ASSERT_EQ(by_name.size(), 2u);
  ASSERT_EQ(by_index.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(by_name[i].text, by_index[i].text);
    EXPECT_EQ(by_name[i].text_pair, by_index[i].text_pair);
    EXPECT_EQ(by_name[i].label, by_index[i].label);
  }
  EXPECT_EQ(by_name[1].text, "P two.");
  EXPECT_EQ(by_name[1].text_pair, "H two.");
  EXPECT_EQ(by_name[1].label, "not_entailment");

  // A column named "1" wins over index 1.
  const std::string named = tmp.file("named.csv");
  write_file(named, "1,text,label\nfrom the column named 1,other,x\n");
  EXPECT_EQ(read_labeled_data(named, fields("1", "", "label"), true).at(0).text, "from the column named 1");

  // An index past the last column is no field.
  expect_bad_input([&] { read_labeled_data(path, fields("7", "", "label"), true); },
                   path + ":1: no field '7' (fields: index, sentence1, sentence2, label)", "--text-field");
}

TEST(LabeledData, NoHeaderTakesIndicesOnly) {
  TempDir tmp;
  const std::string path = tmp.file("data.tsv");
  write_file(path, "first text\tpos\nsecond text\tneg\n");
  LabeledDataOptions o = fields("0", "", "1");
  o.header = false;
  const auto ex = read_labeled_data(path, o, true);
  ASSERT_EQ(ex.size(), 2u);  // the first line is data, not a header
  EXPECT_EQ(ex[0].text, "first text");
  EXPECT_EQ(ex[0].line, 1u);
  EXPECT_EQ(ex[1].label, "neg");

  // Names mean nothing without a header.
  o.label_field = "label";
  expect_bad_input([&] { read_labeled_data(path, o, true); }, path + ":1: no field 'label' (fields: 0, 1)",
                   "pass a 0-based column index to --label-field");
}

TEST(LabeledData, CompressedInputByMagicBytes) {
  TempDir tmp;
  const std::string plain = "{\"text\": \"zipped\", \"label\": \"a\"}\n{\"text\": \"too\", \"label\": \"b\"}\n";
  for (const char* codec : {"gzip", "zstd"}) {
    const std::string path = tmp.file(std::string("train.jsonl.") + codec);
    write_file(path, testing::compress(plain, codec));
    const auto ex = read_labeled_data(path, {}, true);
    ASSERT_EQ(ex.size(), 2u) << codec;
    EXPECT_EQ(ex[0].text, "zipped") << codec;
    EXPECT_EQ(ex[1].label, "b") << codec;
  }
  const std::string csv = tmp.file("train.csv.gz");
  write_file(csv, testing::compress("text,label\n\"multi\nline\",x\n", "gzip"));
  EXPECT_EQ(read_labeled_data(csv, {}, true).at(0).text, "multi\nline");
}

TEST(LabeledData, JsonFieldTypeErrors) {
  TempDir tmp;
  const std::string path = tmp.file("bad.jsonl");
  auto error_for = [&](const std::string& second_line) {
    write_file(path, "{\"text\": \"fine\", \"label\": \"a\"}\n" + second_line + "\n");
    return error_of([&] { read_labeled_data(path, {}, true); });
  };
  EXPECT_EQ(error_for("{\"text\": null, \"label\": \"a\"}"), path + ":2: field 'text' is null, not a string");
  EXPECT_EQ(error_for("{\"text\": 12, \"label\": \"a\"}"), path + ":2: field 'text' is number, not a string");
  EXPECT_EQ(error_for("{\"text\": \"x\", \"label\": [0.5]}"),
            path + ":2: the label (field 'label') is [0.5], not a string, number or bool");
  EXPECT_EQ(error_for("{\"text\": \"x\", \"label\": null}"), path + ":2: the label (field 'label') is null");
  EXPECT_EQ(error_for("{\"text\": \"x\", \"label\": \"\"}"), path + ":2: the label (field 'label') is empty");
  EXPECT_EQ(error_for("{\"txt\": \"x\", \"label\": \"a\"}"), path + ":2: no field 'text' (fields: txt, label)");
  EXPECT_EQ(error_for("[\"text\", \"label\"]"), path + ":2: a JSON array, not an object");
  EXPECT_TRUE(contains(error_for("{\"text\": \"x\", "), path + ":2: not valid JSON (")) << error_for("{");
}

TEST(LabeledData, PairFieldMissingIsNamed) {
  TempDir tmp;
  const std::string path = tmp.file("pairs.jsonl");
  write_file(path, "{\"a\": \"x\", \"label\": \"p\"}\n");
  expect_bad_input([&] { read_labeled_data(path, fields("a", "b", "label"), true); },
                   path + ":1: no field 'b' (fields: a, label)", "--text-pair-field");
}

TEST(LabeledData, RecordWidthMustMatchTheHeader) {
  TempDir tmp;
  const std::string tsv = tmp.file("bad.tsv");
  write_file(tsv, "text\tlabel\nok\tpos\nhas\ta tab\tneg\n");
  EXPECT_EQ(error_of([&] { read_labeled_data(tsv, {}, true); }), tsv + ":3: 3 fields, but the header has 2");
  const std::string csv = tmp.file("bad.csv");
  write_file(csv, "text,label\n\"a\nb\",pos\nonly one field\n");
  EXPECT_EQ(error_of([&] { read_labeled_data(csv, {}, true); }), csv + ":4: 1 fields, but the header has 2");
  LabeledDataOptions no_header = fields("0", "", "1");
  no_header.header = false;
  write_file(tsv, "a\tpos\nb\tneg\textra\n");
  EXPECT_EQ(error_of([&] { read_labeled_data(tsv, no_header, true); }),
            tsv + ":2: 3 fields, but the first record has 2");
}

TEST(LabeledData, EmptyLabelInCsvIsAnErrorForTraining) {
  TempDir tmp;
  const std::string csv = tmp.file("train.csv");
  write_file(csv, "text,label\na,pos\nb,\n");
  EXPECT_EQ(error_of([&] { read_labeled_data(csv, {}, true); }), csv + ":3: the label (field 'label') is empty");
  EXPECT_EQ(read_labeled_data(csv, {}, false).at(1).label, "");
}

TEST(LabeledData, EmptySplits) {
  TempDir tmp;
  const std::pair<const char*, const char*> files[] = {{"empty.jsonl", ""},
                                                       {"blank.jsonl", "\n  \n\n"},
                                                       {"header_only.csv", "text,label\n"},
                                                       {"header_only.tsv", "text\tlabel\n"},
                                                       {"nothing.tsv", ""}};
  for (const auto& [name, content] : files) {
    const std::string path = tmp.file(name);
    write_file(path, content);
    SCOPED_TRACE(name);
    expect_bad_input([&] { read_labeled_data(path, {}, true); }, path + ": no examples (empty split)",
                     "check the path");
  }
}

TEST(LabeledData, MissingFileAndUnknownFormat) {
  TempDir tmp;
  EXPECT_TRUE(contains(error_of([&] { read_labeled_data(tmp.file("nope.jsonl"), {}, true); }), "nope.jsonl"));
  const std::string parquet = tmp.file("train.parquet");
  write_file(parquet, "PAR1");
  EXPECT_EQ(error_of([&] { read_labeled_data(parquet, {}, true); }),
            parquet + ": cannot tell the format from the file name");
  LabeledDataOptions o;
  o.format = "xlsx";
  EXPECT_EQ(error_of([&] { read_labeled_data(parquet, o, true); }), "unknown format 'xlsx'");
  o.format = "csv";  // a forced format reads any name
  write_file(parquet, "text,label\nx,y\n");
  EXPECT_EQ(read_labeled_data(parquet, o, true).at(0).label, "y");
}

TEST(LabeledData, ResolveFormat) {
  EXPECT_EQ(resolve_format("a/train.jsonl", "auto"), "jsonl");
  EXPECT_EQ(resolve_format("a/train.json", "auto"), "jsonl");
  EXPECT_EQ(resolve_format("train.txt.gz", "auto"), "jsonl");
  EXPECT_EQ(resolve_format("dir.d/Train.CSV", "auto"), "csv");
  EXPECT_EQ(resolve_format("dev.tsv.zst", "auto"), "tsv");
  EXPECT_EQ(resolve_format("dev.tsv.xz", "auto"), "tsv");
  EXPECT_EQ(resolve_format("dev.tsv", "csv"), "csv");
  EXPECT_EQ(resolve_format("x", "json"), "jsonl");
  EXPECT_THROW(resolve_format("data.csv.d/train", "auto"), BadInput);
  EXPECT_THROW(resolve_format("train.gz", "auto"), BadInput);
}

TEST(LabeledData, OverlongLineIsRefusedNotCut) {
  TempDir tmp;
  const std::string path = tmp.file("long.tsv");
  write_file(path, "text\tlabel\n" + std::string(5u << 20, 'x') + "\tpos\n");
  EXPECT_EQ(error_of([&] { read_labeled_data(path, {}, true); }), path + ":2: a line longer than 4 MiB");
}

}  // namespace
}  // namespace bertpt::classify
