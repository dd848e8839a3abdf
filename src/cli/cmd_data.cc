// `bertpt data inspect`: look inside a prepared dataset — decode blocks back to text, and measure
// document lengths, [UNK] rate and padding share (src/data/inspect.h). `bertpt data verify`: check
// it against its manifest — hashes, headers, ids, tokenizer (src/data/verify.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "common/error.h"
#include "data/inspect.h"
#include "data/verify.h"

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

void add_verify(CLI::App* parent) {
  struct Opts {
    CommonFlags common;
    std::string dir;
    bool no_hash = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = parent->add_subcommand(
      "verify", "Check a dataset against its manifest: shard SHA-256, headers and sizes, ids below the vocabulary");
  cmd->add_option("dataset", o->dir, "Dataset directory (from bertpt prepare)")->required();
  cmd->add_flag("--no-hash", o->no_hash, "Skip the SHA-256 of the shards (headers, sizes and ids are still checked)");
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    const data::VerifyResult r = data::verify_dataset(o->dir, !o->no_hash);
    // The report (every problem, one per line) goes to stdout; stderr gets the one-line error.
    if (o->common.json) print_json(r.to_json());
    else
      for (const std::string& p : r.problems) std::printf("%s\n", p.c_str());
    std::fflush(stdout);
    if (!r.ok()) {
      throw BadInput(o->dir + ": " + std::to_string(r.problems.size()) +
                         " problem(s) found, the first: " + r.problems.front(),
                     "re-run bertpt prepare into a new directory (or --overwrite this one)");
    }
    if (!o->common.quiet) {
      std::fprintf(stderr, "%s: ok, %llu shards, %llu sequences, %.1f MB hashed in %.1f s\n", o->dir.c_str(),
                   (unsigned long long)r.shards, (unsigned long long)r.rows, double(r.bytes) / 1e6, r.seconds);
    }
  });
}

}  // namespace

void add_data_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::string dir;
    data::InspectOptions inspect;
  };
  auto o = std::make_shared<Opts>();
  auto* data_cmd = app.add_subcommand("data", "Inspect and verify prepared datasets");
  data_cmd->require_subcommand(1);
  add_verify(data_cmd);
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
