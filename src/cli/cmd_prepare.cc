// `bertpt prepare`: tokenize + pack a corpus into training shards (see src/data/prepare.h).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/commands.h"
#include "cli/corpus_options.h"
#include "common/progress.h"
#include "data/phase_schedule.h"
#include "data/prepare.h"
#include "io/manifest.h"

namespace bertpt::cli {

namespace {

// "N train + M valid sequences of T tokens, D tokens dropped, R M tokens/s".
std::string prepared_line(const data::PrepareResult& r, uint32_t seq_len) {
  const io::ManifestSplit& train = r.manifest.train;
  const io::ManifestSplit& valid = r.manifest.valid;
  uint64_t tokens = train.input_tokens + valid.input_tokens;
  char line[256];
  std::snprintf(line, sizeof line,
                "%llu train + %llu valid sequences of %u tokens, %llu tokens dropped, %.2f M tokens/s",
                (unsigned long long)train.sequences, (unsigned long long)valid.sequences, seq_len,
                (unsigned long long)(train.dropped_tokens + valid.dropped_tokens),
                r.seconds > 0 ? double(tokens) / r.seconds / 1e6 : 0.0);
  return line;
}

nlohmann::json prepared_json(const data::PrepareResult& r) {
  uint64_t tokens = r.manifest.train.input_tokens + r.manifest.valid.input_tokens;
  return {{"seconds", r.seconds},
          {"tokens_per_second", r.seconds > 0 ? double(tokens) / r.seconds : 0.0},
          {"resumed_from_documents", r.resumed_from_documents},
          {"manifest", r.manifest.to_json()}};
}

}  // namespace

void add_prepare_command(CLI::App& app) {
  struct Opts {
    CorpusFlags corpus;
    CommonFlags common;
    data::PrepareOptions prepare;
    std::string packing = "concat";
    std::vector<uint32_t> seq_lens{512};
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("prepare", "Tokenize a corpus and pack it into fixed-length training shards");
  add_corpus_flags(cmd, o->corpus);
  cmd->add_option("-t,--tokenizer", o->prepare.tokenizer,
                  "Tokenizer: a directory with tokenizer.json (or vocab.txt), or one of those files")
      ->required();
  cmd->add_option("-o,--out", o->prepare.out, "Dataset directory (shards + manifest.json + tokenizer/)")->required();
  cmd->add_option("--seq-len", o->seq_lens,
                  "Tokens per training sequence; several (--seq-len 128,512) write OUT/seq-128 and OUT/seq-512 in one "
                  "pass, for train --phase-schedule")
      ->delimiter(',')
      ->default_str("512");
  cmd->add_option("--max-positions", o->prepare.max_positions,
                  "The model's max_position_embeddings; --seq-len may not exceed it")
      ->capture_default_str();
  cmd->add_option("--packing", o->packing,
                  "concat: concatenate documents and cut into full blocks, nothing lost but the final remainder; "
                  "guide: the HF guide's truncate-each-document-to-seq-len and group-by-1000 semantics; "
                  "document: one document per block (long ones split, tails padded)")
      ->capture_default_str();
  cmd->add_flag("--keep-remainder", o->prepare.keep_remainder,
                "concat: pad the final partial block instead of dropping it");
  cmd->add_option("--valid-fraction", o->prepare.valid_fraction,
                  "Share of documents held out for validation (chosen by a hash of the text, so never in train)")
      ->capture_default_str();
  cmd->add_option("--split-seed", o->prepare.split_seed, "Seed of the train/valid split")->capture_default_str();
  cmd->add_option("--threads", o->prepare.threads,
                  "Encoder threads (0 = all cores); the output is the same for any value")
      ->capture_default_str();
  cmd->add_option("--shard-rows", o->prepare.shard_rows, "Rows per train shard (0 = about 64 MiB per shard)")
      ->capture_default_str();
  cmd->add_flag("--resume", o->prepare.resume, "Continue an interrupted run in --out from its last completed shard");
  cmd->add_flag("--overwrite", o->prepare.overwrite, "Replace a dataset already in --out");
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    data::PrepareOptions p = o->prepare;
    p.corpus = o->corpus.to_options();
    p.packing = data::parse_packing(o->packing);
    p.seq_len = o->seq_lens.size() == 1 ? o->seq_lens.front() : 0;
    Progress progress("prepare", o->common.quiet);
    auto report = [&](const data::PrepareProgress& pr) {
      double el = progress.elapsed_seconds();
      char rate[64];
      std::snprintf(rate, sizeof rate, "%.2f M tokens/s", el > 0 ? double(pr.tokens) / el / 1e6 : 0.0);
      progress.update(pr.disk_bytes_read, pr.disk_bytes_total,
                      std::to_string(pr.documents) + " documents, " + std::to_string(pr.tokens) + " tokens, " + rate);
    };
    const bool several = o->seq_lens.size() > 1;
    const std::vector<data::PrepareResult> results = several ? data::prepare_lengths(p, o->seq_lens, report)
                                                             : std::vector{data::prepare_dataset(p, report)};
    std::string summary;
    for (size_t i = 0; i < results.size(); ++i) {
      const std::string out = several ? data::length_dir(p.out, o->seq_lens[i]) : p.out;
      summary += (i ? "\n" : "") + prepared_line(results[i], o->seq_lens[i]) + " -> " + out;
    }
    progress.finish(summary);
    if (o->common.json) {
      nlohmann::json j = {{"out", p.out}};
      for (size_t i = 0; i < results.size(); ++i) {
        nlohmann::json r = prepared_json(results[i]);
        if (!several) {
          j.update(r);
          break;
        }
        r["out"] = data::length_dir(p.out, o->seq_lens[i]);
        j["lengths"].push_back(r);
      }
      print_json(j);
    }
  });
}

}  // namespace bertpt::cli
