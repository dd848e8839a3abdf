// `bertpt data inspect`: look inside a prepared dataset — decode blocks back to text, and measure
// document lengths, [UNK] rate and padding share.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/error.h"
#include "data/dataset.h"
#include "tokenizer/hf_files.h"

namespace bertpt::cli {

void add_data_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::string dir;
    std::string split = "train";
    std::vector<uint64_t> indices;
    uint64_t max_rows = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* data_cmd = app.add_subcommand("data", "Inspect prepared datasets");
  data_cmd->require_subcommand(1);
  auto* cmd = data_cmd->add_subcommand("inspect", "Decode blocks of a dataset back to text and print its statistics");
  cmd->add_option("dataset", o->dir, "Dataset directory (from bertpt prepare)")->required();
  cmd->add_option("--split", o->split, "train or valid")->capture_default_str();
  cmd->add_option("--index", o->indices, "Decode and print these blocks (repeatable)");
  cmd->add_option("--max-rows", o->max_rows, "Scan at most this many blocks for the statistics (0 = all)")
      ->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    data::Dataset ds(o->dir, o->split);
    auto tok = tokenizer::load_tokenizer(ds.tokenizer_dir());
    const auto sp = tok.special_ids();
    const uint32_t L = ds.seq_len();
    std::vector<uint32_t> row(L);

    // Document lengths: the distance between consecutive [CLS] tokens in the block stream.
    std::vector<uint64_t> histogram(24, 0);  // bucket k: lengths in [2^k, 2^(k+1))
    uint64_t rows = o->max_rows ? std::min(o->max_rows, ds.size()) : ds.size();
    uint64_t tokens = 0, unk = 0, pad = 0, docs = 0, current = 0;
    auto close_doc = [&] {
      if (current == 0) return;
      int b = 0;
      while ((uint64_t(2) << b) <= current && b < 23) ++b;
      ++histogram[size_t(b)];
      ++docs;
      current = 0;
    };
    for (uint64_t r = 0; r < rows; ++r) {
      ds.get(r, row.data());
      for (uint32_t id : row) {
        if (int64_t(id) == sp.pad) {
          ++pad;
          continue;
        }
        if (int64_t(id) == sp.cls) close_doc();
        ++tokens;
        ++current;
        unk += int64_t(id) == sp.unk;
      }
    }
    close_doc();

    nlohmann::json j = {{"dataset", o->dir},
                        {"split", o->split},
                        {"sequences", ds.size()},
                        {"scanned_sequences", rows},
                        {"seq_len", L},
                        {"tokens", tokens},
                        {"documents_seen", docs},
                        {"unk_rate", tokens ? double(unk) / double(tokens) : 0.0},
                        {"padding_share", rows ? double(pad) / double(rows * L) : 0.0}};
    nlohmann::json hist = nlohmann::json::array();
    for (size_t b = 0; b < histogram.size(); ++b) {
      if (histogram[b]) hist.push_back({{"min_tokens", uint64_t(1) << b}, {"max_tokens", (uint64_t(2) << b) - 1}, {"documents", histogram[b]}});
    }
    j["document_length_histogram"] = hist;
    nlohmann::json blocks = nlohmann::json::array();
    for (uint64_t idx : o->indices) {
      if (idx >= ds.size()) {
        throw BadInput("--index " + std::to_string(idx) + " is out of range: the " + o->split + " split has " +
                       std::to_string(ds.size()) + " blocks");
      }
      ds.get(idx, row.data());
      blocks.push_back({{"index", idx}, {"ids", row}, {"text", tok.decode(row, false)}});
    }
    if (!blocks.empty()) j["blocks"] = blocks;

    if (o->common.json) {
      print_json(j);
      return;
    }
    std::printf("%s [%s]: %llu blocks of %u tokens (%llu scanned)\n", o->dir.c_str(), o->split.c_str(),
                (unsigned long long)ds.size(), L, (unsigned long long)rows);
    std::printf("tokens %llu, documents %llu, [UNK] rate %.4f%%, padding %.2f%%\n", (unsigned long long)tokens,
                (unsigned long long)docs, 100 * j["unk_rate"].get<double>(), 100 * j["padding_share"].get<double>());
    std::printf("document length (tokens)   documents\n");
    for (const auto& h : hist) {
      std::printf("  %8llu - %-8llu  %12llu\n", (unsigned long long)h["min_tokens"].get<uint64_t>(),
                  (unsigned long long)h["max_tokens"].get<uint64_t>(), (unsigned long long)h["documents"].get<uint64_t>());
    }
    for (const auto& b : blocks) {
      std::printf("\n--- block %llu ---\n%s\n", (unsigned long long)b["index"].get<uint64_t>(),
                  b["text"].get<std::string>().c_str());
    }
  });
}

}  // namespace bertpt::cli
