#include "data/packer.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace bertpt::data {
namespace {

constexpr uint32_t PAD = 0, CLS = 2, SEP = 3;

// A document of n tokens: [CLS] 100+k... [SEP].
std::vector<uint32_t> doc(uint32_t tag, size_t n) {
  std::vector<uint32_t> d = {CLS};
  for (size_t i = 0; i + 2 < n; ++i) d.push_back(tag * 1000 + uint32_t(i));
  d.push_back(SEP);
  return d;
}

struct Packed {
  std::vector<std::vector<uint32_t>> rows;
  PackerStats stats;
};

Packed pack(PackerOptions o, const std::vector<std::vector<uint32_t>>& docs) {
  Packed r;
  Packer p(o, [&](const uint32_t* row) { r.rows.emplace_back(row, row + o.seq_len); });
  for (const auto& d : docs) p.add(d);
  p.finish();
  r.stats = p.stats();
  return r;
}

PackerOptions opts(Packing mode, uint32_t L) {
  PackerOptions o;
  o.mode = mode;
  o.seq_len = L;
  o.pad_id = PAD;
  o.cls_id = CLS;
  o.sep_id = SEP;
  return o;
}

TEST(Packer, ConcatKeepsEveryTokenButTheFinalRemainder) {
  std::vector<std::vector<uint32_t>> docs = {doc(1, 5), doc(2, 12), doc(3, 3)};
  auto r = pack(opts(Packing::Concat, 8), docs);
  std::vector<uint32_t> stream;
  for (const auto& d : docs) stream.insert(stream.end(), d.begin(), d.end());
  ASSERT_EQ(r.rows.size(), 2u);  // 20 tokens -> 2 rows of 8, 4 dropped
  for (size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(r.rows[i], std::vector<uint32_t>(stream.begin() + long(8 * i), stream.begin() + long(8 * i + 8)));
  }
  EXPECT_EQ(r.stats.tokens, 16u);
  EXPECT_EQ(r.stats.dropped_tokens, 4u);
  EXPECT_EQ(r.stats.input_tokens, 20u);
  EXPECT_EQ(r.stats.documents, 3u);
}

TEST(Packer, KeepRemainderPadsTheLastRow) {
  auto o = opts(Packing::Concat, 8);
  o.keep_remainder = true;
  auto r = pack(o, {doc(1, 5), doc(2, 7)});
  ASSERT_EQ(r.rows.size(), 2u);
  // Stream: [CLS] 1000 1001 1002 [SEP] [CLS] 2000 … 2004 [SEP] = 12 tokens -> 8 + 4 padded.
  EXPECT_EQ(r.rows[1], (std::vector<uint32_t>{2002, 2003, 2004, SEP, PAD, PAD, PAD, PAD}));
  EXPECT_EQ(r.stats.dropped_tokens, 0u);
  EXPECT_EQ(r.stats.pad_tokens, 4u);
  EXPECT_EQ(r.stats.tokens, 12u);
}

TEST(Packer, GuideTruncatesGroupsAndDropsEachGroupsRemainder) {
  auto o = opts(Packing::Guide, 8);
  o.group_docs = 2;
  // Group 1: doc of 12 -> truncated to 8 ([CLS] 6 tokens [SEP]); + doc of 5 = 13 -> 1 row, 5 dropped.
  // Group 2: doc of 6 alone (the last, partial group) -> 0 rows, 6 dropped.
  auto r = pack(o, {doc(1, 12), doc(2, 5), doc(3, 6)});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0], (std::vector<uint32_t>{CLS, 1000, 1001, 1002, 1003, 1004, 1005, SEP}));
  EXPECT_EQ(r.stats.dropped_tokens, 4u + 5u + 6u);
  EXPECT_EQ(r.stats.tokens + r.stats.dropped_tokens, r.stats.input_tokens);
}

TEST(Packer, DocumentModeNeverMixesDocuments) {
  auto r = pack(opts(Packing::Document, 8), {doc(1, 3), doc(2, 14)});
  // doc 1: [CLS] 1000 [SEP] + pad; doc 2 has 12 content tokens -> pieces of 6 -> 2 rows.
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0], (std::vector<uint32_t>{CLS, 1000, SEP, PAD, PAD, PAD, PAD, PAD}));
  EXPECT_EQ(r.rows[1], (std::vector<uint32_t>{CLS, 2000, 2001, 2002, 2003, 2004, 2005, SEP}));
  EXPECT_EQ(r.rows[2], (std::vector<uint32_t>{CLS, 2006, 2007, 2008, 2009, 2010, 2011, SEP}));
  EXPECT_EQ(r.stats.dropped_tokens, 0u);
  EXPECT_EQ(r.stats.added_special_tokens, 2u);
  EXPECT_EQ(r.stats.tokens, r.stats.input_tokens + r.stats.added_special_tokens);
}

TEST(Packer, StateRoundTripContinuesExactly) {
  std::vector<std::vector<uint32_t>> docs = {doc(1, 5), doc(2, 12), doc(3, 3), doc(4, 9), doc(5, 20)};
  for (Packing mode : {Packing::Concat, Packing::Guide}) {
    auto o = opts(mode, 8);
    o.group_docs = 3;
    auto whole = pack(o, docs);
    Packed split;
    Packer first(o, [&](const uint32_t* row) { split.rows.emplace_back(row, row + 8); });
    first.add(docs[0]);
    first.add(docs[1]);
    Packer::State s = first.state();
    Packer second(o, [&](const uint32_t* row) { split.rows.emplace_back(row, row + 8); });
    second.restore(s);
    for (size_t i = 2; i < docs.size(); ++i) second.add(docs[i]);
    second.finish();
    EXPECT_EQ(split.rows, whole.rows) << packing_name(mode);
    EXPECT_EQ(second.stats().dropped_tokens, whole.stats.dropped_tokens);
  }
}

TEST(Packer, RejectsTinySeqLenAndUnknownModes) {
  EXPECT_THROW(Packer(opts(Packing::Concat, 4), [](const uint32_t*) {}), BadInput);
  EXPECT_THROW(parse_packing("zigzag"), BadInput);
  EXPECT_EQ(parse_packing("guide"), Packing::Guide);
}

}  // namespace
}  // namespace bertpt::data
