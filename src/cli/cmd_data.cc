// `bertpt data inspect`: look inside a prepared dataset — decode blocks back to text, and measure
// document lengths, [UNK] rate and padding share (src/data/inspect.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "data/inspect.h"

namespace bertpt::cli {

namespace {

void print_inspect_report(const data::InspectResult& r) {
  std::printf("%s [%s]: %llu blocks of %u tokens (%llu scanned)\n", r.dataset.c_str(), r.split.c_str(),
              (unsigned long long)r.sequences, r.seq_len, (unsigned long long)r.scanned_sequences);
  std::printf("tokens %llu, documents %llu, [UNK] rate %.4f%%, padding %.2f%%\n", (unsigned long long)r.tokens,
              (unsigned long long)r.documents_seen, 100 * r.unk_rate, 100 * r.padding_share);
  std::printf("document length (tokens)   documents\n");
  for (const data::LengthBucket& h : r.document_length_histogram) {
    std::printf("  %8llu - %-8llu  %12llu\n", (unsigned long long)h.min_tokens, (unsigned long long)h.max_tokens,
                (unsigned long long)h.documents);
  }
  for (const data::DecodedBlock& b : r.blocks) {
    std::printf("\n--- block %llu ---\n%s\n", (unsigned long long)b.index, b.text.c_str());
  }
}

}  // namespace

void add_data_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::string dir;
    data::InspectOptions inspect;
  };
  auto o = std::make_shared<Opts>();
  auto* data_cmd = app.add_subcommand("data", "Inspect prepared datasets");
  data_cmd->require_subcommand(1);
  auto* cmd = data_cmd->add_subcommand("inspect", "Decode blocks of a dataset back to text and print its statistics");
  cmd->add_option("dataset", o->dir, "Dataset directory (from bertpt prepare)")->required();
  cmd->add_option("--split", o->inspect.split, "train or valid")->capture_default_str();
  cmd->add_option("--index", o->inspect.indices, "Decode and print these blocks (repeatable)");
  cmd->add_option("--max-rows", o->inspect.max_rows, "Scan at most this many blocks for the statistics (0 = all)")
      ->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    const data::InspectResult r = data::inspect_dataset(o->dir, o->inspect);
    if (o->common.json) {
      print_json(r.to_json());
      return;
    }
    print_inspect_report(r);
  });
}

}  // namespace bertpt::cli
