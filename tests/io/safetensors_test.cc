// The safetensors reader and writer (plain C++, no LibTorch in this file).
#include "io/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::io {
namespace {

std::string le_u64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// A file from a header (padded by the caller or not) and raw data.
std::string make_file(const std::string& header, const std::string& data) {
  return le_u64(header.size()) + header + data;
}

// Expects open() on `bytes` to throw BadInput whose message contains every string of `parts`.
void expect_bad(const std::string& bytes, const std::vector<std::string>& parts) {
  bertpt::testing::TempDir dir;
  const std::string path = dir.file("bad.safetensors");
  bertpt::testing::write_file(path, bytes);
  try {
    SafetensorsFile::open(path);
    FAIL() << "no error for a bad file; expected: " << parts.front();
  } catch (const BadInput& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;  // names the file
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
  }
}

TEST(Safetensors, WriterMatchesTheReferenceLayout) {
  // What huggingface/safetensors writes for {"a": float32 [1, 2]} with transformers' metadata:
  // compact JSON, __metadata__ first, keys dtype/shape/data_offsets, space-padded to 8 bytes.
  SafetensorsWriter w;
  float a[2] = {1.0f, 2.0f};
  w.add("a", DType::F32, {2}, a, sizeof a);
  w.set_metadata("format", "pt");
  std::string header = R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  while (header.size() % 8) header += ' ';
  std::string data(reinterpret_cast<const char*>(a), sizeof a);
  EXPECT_EQ(w.serialize(), make_file(header, data));
}

TEST(Safetensors, WriterMatchesTheReferenceTestVectors) {
  // Byte vectors from huggingface/safetensors' own unit tests (tensor.rs): an F32 [1, 2, 3] named
  // "attn.0" (header exactly 64 bytes, no padding), and an empty file with and without metadata.
  SafetensorsWriter w;
  const float v[6] = {0, 1, 2, 3, 4, 5};
  w.add("attn.0", DType::F32, {1, 2, 3}, v, sizeof v);
  std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u);
  EXPECT_EQ(w.serialize(), make_file(header, std::string(reinterpret_cast<const char*>(v), sizeof v)));

  EXPECT_EQ(SafetensorsWriter().serialize(), make_file("{}      ", ""));
  SafetensorsWriter m;
  m.set_metadata("framework", "pt");
  EXPECT_EQ(m.serialize(), make_file(R"({"__metadata__":{"framework":"pt"}})"
                                     "     ",
                                     ""));
}

TEST(Safetensors, RoundTripIsByteExact) {
  SafetensorsWriter w;
  std::vector<float> f(6);
  for (size_t i = 0; i < f.size(); ++i) f[i] = 0.5f * static_cast<float>(i);
  std::vector<int64_t> ids = {7, -1, 1LL << 40};
  std::vector<uint16_t> bf = {0x3f80, 0xc000};  // bf16 1.0, -2.0
  std::vector<uint8_t> flags = {1, 0, 1};
  w.add("z.weight", DType::F32, {2, 3}, f.data(), f.size() * 4);
  w.add("ids", DType::I64, {3}, ids.data(), ids.size() * 8);
  w.add("half", DType::BF16, {2}, bf.data(), bf.size() * 2);
  w.add("mask", DType::BOOL, {3}, flags.data(), flags.size());
  w.add("bytes", DType::U8, {3}, flags.data(), flags.size());
  w.add("scalar", DType::F32, {}, f.data(), 4);
  w.add("empty", DType::I32, {0, 4}, nullptr, 0);
  w.set_metadata("format", "pt");
  const std::string bytes = w.serialize();

  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes[8], '{');

  bertpt::testing::TempDir dir;
  const std::string path = dir.file("m.safetensors");
  w.write(path);
  EXPECT_EQ(bertpt::testing::slurp(path), bytes);

  SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  ASSERT_EQ(file.tensors().size(), 7u);
  // File order: element size descending, then name.
  std::vector<std::string> order;
  for (const auto& t : file.tensors()) order.push_back(t.name);
  EXPECT_EQ(order, (std::vector<std::string>{"ids", "scalar", "z.weight", "empty", "half", "bytes", "mask"}));
  const TensorView* z = file.find("z.weight");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->dtype, DType::F32);
  EXPECT_EQ(z->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(z->data, f.data(), 24), 0);
  EXPECT_EQ(file.find("scalar")->shape.size(), 0u);
  EXPECT_EQ(file.find("scalar")->numel(), 1);
  EXPECT_EQ(file.find("empty")->nbytes, 0u);
  EXPECT_EQ(file.find("nope"), nullptr);
  const TensorView* i = file.find("ids");
  int64_t back[3];
  std::memcpy(back, i->data, 24);
  EXPECT_EQ(back[2], 1LL << 40);

  // Re-saving what was read gives the same bytes.
  SafetensorsWriter again;
  for (const auto& t : file.tensors()) again.add(t.name, t.dtype, t.shape, t.data, t.nbytes);
  for (const auto& [k, v] : file.metadata()) again.set_metadata(k, v);
  EXPECT_EQ(again.serialize(), bytes);
}

TEST(Safetensors, WriterRejectsInconsistentInput) {
  SafetensorsWriter w;
  float x[4] = {};
  EXPECT_THROW(w.add("x", DType::F32, {3}, x, sizeof x), BadInput);
  w.add("x", DType::F32, {4}, x, sizeof x);
  EXPECT_THROW(w.add("x", DType::F32, {4}, x, sizeof x), BadInput);
  EXPECT_THROW(w.add("", DType::F32, {4}, x, sizeof x), BadInput);
  EXPECT_THROW(w.add("__metadata__", DType::F32, {4}, x, sizeof x), BadInput);
}

TEST(Safetensors, NamesWithQuotesAreEscaped) {
  SafetensorsWriter w;
  uint8_t b = 7;
  w.add("we\"ird\\name", DType::U8, {1}, &b, 1);
  std::string bytes = w.serialize();
  SafetensorsFile f = SafetensorsFile::from_buffer("mem", reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_NE(f.find("we\"ird\\name"), nullptr);
}

TEST(Safetensors, BadFilesGiveClearErrors) {
  const std::string good_header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string data8(8, '\0');
  expect_bad("", {"shorter than the 8-byte header length"});
  expect_bad("abc", {"shorter than the 8-byte header length"});
  expect_bad(le_u64(1000) + "{}", {"runs past the end of the file"});
  expect_bad(le_u64(uint64_t(1) << 40) + "{}", {"larger than"});
  expect_bad(make_file("[1,2]   ", ""), {"does not start with '{'"});
  expect_bad(make_file(R"({"a":{"dtype":"F32",)", data8), {"not valid JSON"});
  // Truncated: the header promises 8 bytes, the file holds 4.
  expect_bad(make_file(good_header, std::string(4, '\0')), {"'a'", "run past the end of the data", "truncated"});
  // Size mismatch: 2 floats need 8 bytes, the offsets give 12.
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,12]}})", std::string(12, '\0')),
             {"'a'", "needs 8 bytes", "hold 12"});
  // Overlap.
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                       data8),
             {"'b'", "overlaps"});
  // Gap.
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data8), {"gap", "'a'"});
  // Trailing garbage after the last tensor.
  expect_bad(make_file(good_header, data8 + "xx"), {"trailing bytes"});
  expect_bad(make_file(R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", data8),
             {"'a'", "unsupported dtype"});
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data8), {"'a'", "negative"});
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", data8), {"'a'", "end before"});
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[2]}})", data8), {"'a'", "data_offsets"});
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                       data8),
             {"'a' twice"});
  expect_bad(make_file(R"({"__metadata__":{"format":1},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data8),
             {"__metadata__"});
  // Shape whose byte size overflows 64 bits.
  expect_bad(make_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", data8),
             {"'a'"});
  // Invalid UTF-8 inside the header JSON.
  expect_bad(make_file("{\"\xff\":{}}", ""), {"not valid JSON"});
}

TEST(Safetensors, MissingFileIsBadInput) {
  EXPECT_THROW(SafetensorsFile::open("/nonexistent/x.safetensors"), BadInput);
}

}  // namespace
}  // namespace bertpt::io
