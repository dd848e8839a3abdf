// `bertpt corpus stats|merge`: read text sources, report what is in them, merge them into one corpus.
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "cli/commands.h"
#include "cli/corpus_options.h"
#include "cli/stop_signals.h"
#include "common/error.h"
#include "common/progress.h"
#include "common/stop_request.h"
#include "text/corpus_merge.h"

namespace bertpt::cli {

namespace {

std::string human_count(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

void print_stats_table(const std::vector<text::SourceStats>& sources, const text::SourceStats& total) {
  std::printf("%-36s %7s %14s %12s %16s %9s %9s\n", "source", "files", "bytes", "documents", "characters", "empty",
              "repaired");
  auto row = [](const text::SourceStats& s) {
    std::string name = s.name.size() > 36 ? "…" + s.name.substr(s.name.size() - 33) : s.name;
    std::printf("%-36s %7s %14s %12s %16s %9s %9s\n", name.c_str(), human_count(s.files).c_str(),
                human_count(s.bytes).c_str(), human_count(s.documents).c_str(), human_count(s.characters).c_str(),
                human_count(s.empty_skipped).c_str(), human_count(s.invalid_utf8 + s.nul_removed).c_str());
  };
  for (const auto& s : sources) row(s);
  if (sources.size() > 1) row(total);
  if (total.files_decoded > 0) {
    std::printf("(%s files decoded to UTF-8 from another encoding)\n", human_count(total.files_decoded).c_str());
  }
  if (total.long_lines_split || total.bad_lines_skipped || total.nul_removed) {
    std::printf("(%s long lines split, %s bad JSONL lines skipped, %s NUL bytes removed)\n",
                human_count(total.long_lines_split).c_str(), human_count(total.bad_lines_skipped).c_str(),
                human_count(total.nul_removed).c_str());
  }
}

nlohmann::json stats_json(const std::vector<text::SourceStats>& sources, const text::SourceStats& total) {
  nlohmann::json j;
  j["sources"] = nlohmann::json::array();
  for (const auto& s : sources) j["sources"].push_back(text::to_json(s));
  j["total"] = text::to_json(total);
  return j;
}

// "12,345 documents", and for MediaWiki dumps "… from 45,678 pages (5,100 pages/s)".
std::string progress_detail(uint64_t docs, const char* what, uint64_t pages, double seconds) {
  std::string s = human_count(docs) + " " + what;
  if (pages > 0 && seconds > 0) {
    s += " from " + human_count(pages) + " pages (" + human_count(uint64_t(double(pages) / seconds)) + " pages/s)";
  }
  return s;
}

uint64_t parse_count(const std::string& s) {
  size_t used = 0;
  long long v = std::stoll(s, &used);
  if (used != s.size() || v < 0) throw std::invalid_argument(s);
  return uint64_t(v);
}

double parse_weight(const std::string& s) {
  size_t used = 0;
  double v = std::stod(s, &used);
  if (used != s.size()) throw std::invalid_argument(s);
  return v;
}

void add_stats(CLI::App* corpus) {
  struct Opts {
    CorpusFlags corpus;
    CommonFlags common;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = corpus->add_subcommand("stats", "Count files, bytes, documents and characters per source");
  add_corpus_flags(cmd, o->corpus);
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    text::CorpusReader reader(o->corpus.to_options());
    Progress progress("corpus stats", o->common.quiet);
    text::Document doc;
    uint64_t n = 0;
    while (reader.next(doc)) {
      if ((++n & 4095) == 0) {
        progress.update(reader.disk_bytes_read(), reader.disk_bytes_total(),
                        progress_detail(n, "documents", reader.total().pages, progress.elapsed_seconds()));
      }
    }
    progress.finish("");
    if (o->common.json) {
      auto j = stats_json(reader.stats(), reader.total());
      j["seconds"] = progress.elapsed_seconds();
      print_json(j);
    } else {
      print_stats_table(reader.stats(), reader.total());
    }
  });
}

// Runs the merge, stopped cleanly by SIGINT/SIGTERM (cli/stop_signals.h); reports leftovers of killed merges
// it removed.
text::MergeResult run_merge(text::MergeOptions& m, Progress& progress, bool quiet) {
  StopSignals signals(StopSignalOptions{nullptr, false, /*keep_ignored=*/true});
  m.stop_requested = [] { return StopSignals::requested(); };
  text::MergeResult r;
  try {
    r = text::merge_corpus(m, [&](const text::MergeCounts& c) {
      progress.update(c.disk_bytes_read, c.disk_bytes_total,
                      progress_detail(c.written, "documents written", c.pages, progress.elapsed_seconds()));
    });
  } catch (const text::MergeStopped&) {
    std::fprintf(stderr, "\nbertpt: corpus merge interrupted (%s); its temporary files are removed\n",
                 signal_name(StopSignals::signal_number()).c_str());
    std::fflush(stderr);
    signals.end_by_signal();
  } catch (const Interrupted& e) {  // waiting for input: a FIFO without a writer, a silent stream
    std::fprintf(stderr, "%sbertpt: corpus merge interrupted (%s) while %s; its temporary files are removed\n",
                 progress.interactive() ? "\n" : "", signal_name(e.signal()).c_str(), e.what());
    std::fflush(stderr);
    signals.end_by_signal();
  }
  if (!quiet && !r.leftovers_removed.empty()) {
    std::fprintf(stderr, "corpus merge: removed %zu temporary file(s) of an interrupted merge (%s), e.g. %s\n",
                 r.leftovers_removed.size(), Progress::format_bytes(double(r.leftover_bytes_removed)).c_str(),
                 r.leftovers_removed.front().c_str());
  }
  return r;
}

void add_merge(CLI::App* corpus) {
  struct Opts {
    CorpusFlags corpus;
    CommonFlags common;
    std::string out;
    bool shuffle = false;
    uint64_t seed = 0;
    bool dedup = false;
    std::vector<std::string> max_docs, weight;
    size_t shuffle_memory_mb = 512;
    int level = -1;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = corpus->add_subcommand("merge", "Merge sources into one JSONL corpus ({\"text\", \"source\"} per line)");
  add_corpus_flags(cmd, o->corpus);
  cmd->add_option("-o,--out", o->out,
                  "Output file: .jsonl, or .jsonl.zst/.gz/.xz/.bz2 to compress. Written under a temporary name and "
                  "renamed when complete")
      ->required();
  cmd->add_flag("--shuffle", o->shuffle,
                "Shuffle documents (deterministic for a --seed; memory-bounded external shuffle)");
  cmd->add_option("--seed", o->seed, "Seed of the shuffle and of fractional weights")->capture_default_str();
  cmd->add_flag("--dedup", o->dedup, "Drop exact duplicate documents (by 64-bit content hash), counted");
  cmd->add_option("--max-docs", o->max_docs,
                  "Take at most N documents from a source: N for every source, or SOURCE=N (SOURCE is the --input "
                  "string or its 1-based position); repeatable");
  cmd->add_option("--weight", o->weight,
                  "Copies of each document of a source: W for all, or SOURCE=W; 2 doubles a source, 0.5 keeps about "
                  "half (chosen deterministically); repeatable");
  cmd->add_option("--shuffle-memory-mb", o->shuffle_memory_mb, "Target memory of one shuffle bucket")
      ->capture_default_str();
  cmd->add_option("--level", o->level, "Compression level of the output (default: the codec's own)");
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    text::MergeOptions m;
    m.corpus = o->corpus.to_options();
    m.out = o->out;
    m.shuffle = o->shuffle;
    m.seed = o->seed;
    m.dedup = o->dedup;
    m.max_docs = per_source_values<uint64_t>(o->max_docs, m.corpus.inputs, 0, "--max-docs", parse_count);
    m.weight = per_source_values<double>(o->weight, m.corpus.inputs, 1.0, "--weight", parse_weight);
    m.shuffle_memory_bytes = o->shuffle_memory_mb << 20;
    m.compression_level = o->level;
    Progress progress("corpus merge", o->common.quiet);
    const text::MergeResult r = run_merge(m, progress, o->common.quiet);
    progress.finish(human_count(r.written) + " documents written to " + m.out + " (" + human_count(r.duplicates) +
                    " duplicates dropped) in " + Progress::format_duration(progress.elapsed_seconds()));
    if (o->common.json) {
      auto j = stats_json(r.sources, r.total);
      j["out"] = m.out;
      j["written"] = r.written;
      j["written_per_source"] = r.written_per_source;
      j["duplicates"] = r.duplicates;
      j["bytes_written"] = r.bytes_written;
      j["shuffle"] = m.shuffle;
      j["seed"] = m.seed;
      j["buckets"] = r.buckets;
      j["seconds"] = progress.elapsed_seconds();
      print_json(j);
    } else if (!o->common.quiet) {
      print_stats_table(r.sources, r.total);
    }
  });
}

}  // namespace

void add_corpus_command(CLI::App& app) {
  auto* corpus = app.add_subcommand("corpus", "Read text sources: statistics, merging, shuffling, dedup");
  corpus->require_subcommand(1);
  add_stats(corpus);
  add_merge(corpus);
}

}  // namespace bertpt::cli
