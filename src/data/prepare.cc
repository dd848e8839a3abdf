#include "data/prepare.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/sha256.h"
#include "data/dataset.h"
#include "data/shard.h"
#include "tokenizer/hf_files.h"

namespace bertpt::data {

namespace fs = std::filesystem;

namespace {

constexpr const char* kProgressName = "progress.json";
constexpr uint64_t kSplitSalt = 0x53504c4954000001ull;  // "SPLIT": valid/train is a function of the text
constexpr size_t kBatchBytes = 1 << 20;
constexpr size_t kBatchDocs = 4096;

enum Split { kTrain = 0, kValid = 1 };
const char* split_name(int s) { return s == kTrain ? "train" : "valid"; }

// Documents handed from the reader to the encoders, and their ids handed on to the writer.
struct Batch {
  uint64_t seq = 0;
  std::string text;                   // all documents back to back
  std::vector<size_t> ends;           // end offset of each document in `text`
  std::vector<uint32_t> sources;      // source index per document
  std::vector<uint8_t> splits;        // kTrain / kValid per document
  std::vector<uint32_t> ids;          // encoded ids, back to back
  std::vector<size_t> id_ends;        // end offset of each document in `ids`
};

// A split's packer, its shard writer, and the shards written so far.
struct SplitOutput {
  SplitOutput(const PackerOptions& po, uint32_t bytes_per_id)
      : writer(po.seq_len, bytes_per_id, po.pad_id), packer(po, [this](const uint32_t* row) { writer.add_row(row); }) {}
  ShardWriter writer;
  Packer packer;
  nlohmann::json shards = nlohmann::json::array();
  uint64_t shard_tokens = 0;  // real tokens in the rows of the shard being assembled
};

struct Pipeline {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Batch>> todo;
  std::map<uint64_t, std::unique_ptr<Batch>> done;
  size_t in_flight = 0;
  bool input_finished = false;
  bool failed = false;
  std::exception_ptr error;

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu);
    if (!error) error = e;
    failed = true;
    cv.notify_all();
  }
};

std::string shard_file(int split, size_t index) {
  char name[64];
  std::snprintf(name, sizeof name, "%s-%05zu.bin", split_name(split), index);
  return name;
}

nlohmann::json packer_state_json(const Packer::State& s) {
  const PackerStats& st = s.stats;
  return {{"carry", s.carry},
          {"group_count", s.group_count},
          {"stats",
           {{"documents", st.documents},
            {"input_tokens", st.input_tokens},
            {"rows", st.rows},
            {"tokens", st.tokens},
            {"dropped_tokens", st.dropped_tokens},
            {"pad_tokens", st.pad_tokens},
            {"added_special_tokens", st.added_special_tokens}}}};
}

Packer::State packer_state_from(const nlohmann::json& j) {
  Packer::State s;
  s.carry = j.at("carry").get<std::vector<uint32_t>>();
  s.group_count = j.at("group_count").get<uint64_t>();
  const auto& st = j.at("stats");
  s.stats.documents = st.at("documents");
  s.stats.input_tokens = st.at("input_tokens");
  s.stats.rows = st.at("rows");
  s.stats.tokens = st.at("tokens");
  s.stats.dropped_tokens = st.at("dropped_tokens");
  s.stats.pad_tokens = st.at("pad_tokens");
  s.stats.added_special_tokens = st.at("added_special_tokens");
  return s;
}

// Refuses to write over something that is not ours to replace; clears our own files on --overwrite.
void prepare_output_dir(const PrepareOptions& o) {
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec)) {
    throw BadInput("output " + o.out + " exists and is not a directory", "choose another --out");
  }
  fs::create_directories(o.out, ec);
  if (ec) throw BadInput("cannot create output directory " + o.out + ": " + ec.message());
  bool has_manifest = fs::exists(o.out + "/" + kManifestName);
  bool has_progress = fs::exists(o.out + "/" + kProgressName);
  if (o.overwrite) {
    for (const auto& e : fs::directory_iterator(o.out)) {
      std::string name = e.path().filename().string();
      bool ours = name == kManifestName || name == kProgressName || name == "tokenizer" ||
                  ((name.rfind("train-", 0) == 0 || name.rfind("valid-", 0) == 0) && e.path().extension() == ".bin");
      if (ours) fs::remove_all(e.path());
    }
    return;
  }
  if (has_manifest) {
    throw BadInput(o.out + " already holds a prepared dataset", "pass --overwrite to replace it, or choose another --out");
  }
  if (has_progress && !o.resume) {
    throw BadInput(o.out + " holds an interrupted prepare", "pass --resume to continue it, or --overwrite to start over");
  }
}

}  // namespace

nlohmann::json PrepareOptions::content_config() const {
  return {{"inputs", corpus.inputs},
          {"format", text::format_name(corpus.format)},
          {"doc_per", text::doc_per_name(corpus.doc_per)},
          {"text_field", corpus.text_field},
          {"max_line_bytes", corpus.max_line_bytes},
          {"skip_bad_lines", corpus.skip_bad_lines},
          {"seq_len", seq_len},
          {"packing", packing_name(packing)},
          {"keep_remainder", keep_remainder},
          {"valid_fraction", valid_fraction},
          {"split_seed", split_seed},
          {"shard_rows", shard_rows}};
}

PrepareResult prepare_dataset(const PrepareOptions& opt_in, const std::function<void(const PrepareProgress&)>& progress) {
  auto t0 = std::chrono::steady_clock::now();
  PrepareOptions o = opt_in;
  if (o.out.empty()) throw BadInput("no output directory", "pass --out DATA");
  if (o.seq_len < 8) throw BadInput("--seq-len " + std::to_string(o.seq_len) + " is too short", "use 8 or more (BERT uses 128 or 512)");
  if (o.seq_len > o.max_positions) {
    throw BadInput("--seq-len " + std::to_string(o.seq_len) + " exceeds the model's max_position_embeddings (" +
                       std::to_string(o.max_positions) + ")",
                   "use --seq-len " + std::to_string(o.max_positions) + " or less");
  }
  if (!(o.valid_fraction >= 0 && o.valid_fraction < 1)) throw BadInput("--valid-fraction must be in [0, 1)");

  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(o.tokenizer);
  const tokenizer::SpecialIds sp = tok.special_ids();
  if (sp.cls < 0 || sp.sep < 0 || sp.pad < 0) {
    throw BadInput("tokenizer " + o.tokenizer + " lacks a [CLS], [SEP] or [PAD] token", "use a BERT tokenizer");
  }
  const uint32_t bytes_per_id = bytes_per_id_for(tok.vocab_size());
  if (o.shard_rows == 0) o.shard_rows = std::max<uint64_t>(1, (uint64_t(64) << 20) / (uint64_t(o.seq_len) * bytes_per_id));
  unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());

  const std::string vocab = tokenizer::vocab_txt(tok);
  const std::string vocab_sha = sha256_hex(vocab);
  nlohmann::json config = o.content_config();
  config["tokenizer_vocab_sha256"] = vocab_sha;

  prepare_output_dir(o);

  PackerOptions po;
  po.mode = o.packing;
  po.seq_len = o.seq_len;
  po.pad_id = uint32_t(sp.pad);
  po.cls_id = uint32_t(sp.cls);
  po.sep_id = uint32_t(sp.sep);
  po.keep_remainder = o.keep_remainder;
  SplitOutput outputs[2] = {SplitOutput(po, bytes_per_id), SplitOutput(po, bytes_per_id)};
  std::vector<uint64_t> source_tokens(o.corpus.inputs.size(), 0);
  uint64_t docs_done = 0;  // documents fully handed to the packers

  // --resume: pick up the last checkpoint.
  PrepareResult result;
  const std::string progress_path = o.out + "/" + kProgressName;
  if (o.resume && fs::exists(progress_path)) {
    nlohmann::json p = nlohmann::json::parse(read_file(progress_path));
    if (p.at("config") != config) {
      throw BadInput(progress_path + " was written with different inputs or options",
                     "resume with exactly the same command, or pass --overwrite to start over");
    }
    docs_done = p.at("documents_done");
    for (int s : {kTrain, kValid}) {
      outputs[s].packer.restore(packer_state_from(p.at("splits").at(split_name(s)).at("packer")));
      outputs[s].shards = p.at("splits").at(split_name(s)).at("shards");
    }
    source_tokens = p.at("source_tokens").get<std::vector<uint64_t>>();
    result.resumed_from_documents = docs_done;
  }

  auto write_shard = [&](int s) {
    SplitOutput& out = outputs[s];
    if (out.writer.rows() == 0) return;
    std::string file = shard_file(s, out.shards.size());
    uint64_t rows = out.writer.rows();
    std::string digest = out.writer.write(o.out + "/" + file);
    out.shards.push_back({{"file", file}, {"rows", rows}, {"sha256", digest}});
  };
  auto checkpoint = [&] {
    nlohmann::json p = {{"config", config}, {"documents_done", docs_done}, {"source_tokens", source_tokens}};
    for (int s : {kTrain, kValid}) {
      p["splits"][split_name(s)] = {{"packer", packer_state_json(outputs[s].packer.state())},
                                    {"shards", outputs[s].shards}};
    }
    write_file_atomic(progress_path, p.dump());
  };

  text::CorpusReader reader(o.corpus);
  Pipeline pipe;
  std::atomic<uint64_t> written_docs{docs_done}, written_tokens{0};

  auto encoder = [&] {
    try {
      for (;;) {
        std::unique_ptr<Batch> b;
        {
          std::unique_lock<std::mutex> lock(pipe.mu);
          pipe.cv.wait(lock, [&] { return pipe.failed || !pipe.todo.empty() || pipe.input_finished; });
          if (pipe.failed || (pipe.todo.empty() && pipe.input_finished)) return;
          b = std::move(pipe.todo.front());
          pipe.todo.pop_front();
        }
        size_t begin = 0;
        b->ids.clear();
        b->id_ends.clear();
        for (size_t end : b->ends) {
          tok.encode(std::string_view(b->text).substr(begin, end - begin), b->ids, true);
          b->id_ends.push_back(b->ids.size());
          begin = end;
        }
        std::lock_guard<std::mutex> lock(pipe.mu);
        uint64_t seq = b->seq;
        pipe.done.emplace(seq, std::move(b));
        pipe.cv.notify_all();
      }
    } catch (...) {
      pipe.fail(std::current_exception());
    }
  };

  auto writer = [&] {
    try {
      for (uint64_t next = 0;; ++next) {
        std::unique_ptr<Batch> b;
        {
          std::unique_lock<std::mutex> lock(pipe.mu);
          pipe.cv.wait(lock, [&] {
            return pipe.failed || pipe.done.count(next) ||
                   (pipe.input_finished && pipe.todo.empty() && pipe.in_flight == 0);
          });
          if (pipe.failed) return;
          auto it = pipe.done.find(next);
          if (it == pipe.done.end()) return;  // all input written
          b = std::move(it->second);
          pipe.done.erase(it);
        }
        size_t begin = 0;
        for (size_t d = 0; d < b->id_ends.size(); ++d) {
          size_t end = b->id_ends[d];
          int s = b->splits[d];
          outputs[s].packer.add(b->ids.data() + begin, end - begin);
          source_tokens[b->sources[d]] += end - begin;
          written_tokens += end - begin;
          begin = end;
          ++docs_done;
          if (outputs[kTrain].writer.rows() >= o.shard_rows) {
            // A train shard is full: close the valid split's pending rows too, so that the
            // checkpoint holds only small carry-overs.
            write_shard(kTrain);
            write_shard(kValid);
            checkpoint();
          }
        }
        written_docs = docs_done;
        {
          std::lock_guard<std::mutex> lock(pipe.mu);
          --pipe.in_flight;
        }
        pipe.cv.notify_all();
      }
    } catch (...) {
      pipe.fail(std::current_exception());
    }
  };

  std::vector<std::thread> workers;
  for (unsigned i = 0; i < threads; ++i) workers.emplace_back(encoder);
  std::thread writer_thread(writer);
  const size_t max_in_flight = 2 * size_t(threads) + 2;
  std::exception_ptr input_error;

  try {
    text::Document doc;
    uint64_t read_docs = 0, seq = 0;
    auto batch = std::make_unique<Batch>();
    auto push = [&] {
      batch->seq = seq++;
      std::unique_lock<std::mutex> lock(pipe.mu);
      pipe.cv.wait(lock, [&] { return pipe.failed || pipe.in_flight < max_in_flight; });
      if (pipe.failed) return false;
      ++pipe.in_flight;
      pipe.todo.push_back(std::move(batch));
      pipe.cv.notify_all();
      batch = std::make_unique<Batch>();
      return true;
    };
    const double threshold = o.valid_fraction * 0x1.0p64;
    while (reader.next(doc)) {
      if (read_docs++ < result.resumed_from_documents) continue;  // covered by the checkpoint
      batch->text.append(doc.text);
      batch->ends.push_back(batch->text.size());
      batch->sources.push_back(uint32_t(doc.source_index));
      bool valid = double(hash64(doc.text, kSplitSalt ^ o.split_seed)) < threshold;
      batch->splits.push_back(valid ? kValid : kTrain);
      if (batch->text.size() >= kBatchBytes || batch->ends.size() >= kBatchDocs) {
        if (!push()) break;
        if (progress) {
          progress({reader.disk_bytes_read(), reader.disk_bytes_total(), written_docs.load(), written_tokens.load()});
        }
      }
    }
    if (!batch->ends.empty()) push();
    if (read_docs < result.resumed_from_documents) {
      throw BadInput("the inputs hold " + std::to_string(read_docs) + " documents but the checkpoint in " + progress_path +
                         " covers " + std::to_string(result.resumed_from_documents),
                     "the inputs changed since the interrupted run; pass --overwrite to start over");
    }
  } catch (...) {
    // A broken input stops the reading, but what was read before it is still encoded and written,
    // so the checkpoints cover as much as possible for --resume.
    input_error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(pipe.mu);
    pipe.input_finished = true;
  }
  pipe.cv.notify_all();
  for (auto& w : workers) w.join();
  writer_thread.join();
  if (pipe.error) std::rethrow_exception(pipe.error);
  if (input_error) std::rethrow_exception(input_error);

  for (int s : {kTrain, kValid}) {
    outputs[s].packer.finish();
    write_shard(s);
  }

  // The tokenizer travels with the data, so the dataset describes itself.
  tokenizer::save_tokenizer(tok, o.out + "/tokenizer", o.seq_len > 512 ? o.seq_len : 512);

  nlohmann::json m;
  m["format"] = "bertpt-dataset";
  m["format_version"] = kDatasetFormatVersion;
  m["bertpt_version"] = BERTPT_VERSION;
  m["tokenizer"] = {{"path", o.tokenizer}, {"copy", "tokenizer"}, {"vocab_sha256", vocab_sha}};
  m["seq_len"] = o.seq_len;
  m["vocab_size"] = tok.vocab_size();
  m["dtype"] = bytes_per_id == 2 ? "uint16" : "uint32";
  m["packing"] = packing_name(o.packing);
  m["keep_remainder"] = o.keep_remainder;
  m["valid_fraction"] = o.valid_fraction;
  m["special_ids"] = {{"pad", sp.pad}, {"unk", sp.unk}, {"cls", sp.cls}, {"sep", sp.sep}, {"mask", sp.mask}};
  for (int s : {kTrain, kValid}) {
    const PackerStats& st = outputs[s].packer.stats();
    uint64_t rows = 0;
    for (const auto& sh : outputs[s].shards) rows += sh["rows"].get<uint64_t>();
    m["splits"][split_name(s)] = {{"documents", st.documents},
                                  {"sequences", rows},
                                  {"tokens", st.tokens},
                                  {"input_tokens", st.input_tokens},
                                  {"dropped_tokens", st.dropped_tokens},
                                  {"pad_tokens", st.pad_tokens},
                                  {"added_special_tokens", st.added_special_tokens},
                                  {"shards", outputs[s].shards}};
  }
  const auto& stats = reader.stats();
  for (size_t i = 0; i < stats.size(); ++i) {
    m["sources"].push_back({{"name", stats[i].name},
                            {"documents", stats[i].documents},
                            {"tokens", source_tokens[i]},
                            {"bytes", stats[i].bytes},
                            {"invalid_utf8_repaired", stats[i].invalid_utf8},
                            {"empty_skipped", stats[i].empty_skipped}});
  }
  m["config"] = config;
  write_file_atomic(o.out + "/" + kManifestName, m.dump(2) + "\n");
  std::error_code ec;
  fs::remove(progress_path, ec);

  result.manifest = std::move(m);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace bertpt::data
