#include "data/prepare.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/atomic_file.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/json_fields.h"
#include "common/sha256.h"
#include "data/phase_schedule.h"
#include "data/shard.h"
#include "io/manifest.h"
#include "tokenizer/hf_files.h"

namespace bertpt::data {

namespace fs = std::filesystem;

namespace {

constexpr const char* kProgressName = "progress.json";
constexpr uint64_t kSplitSalt = 0x53504c4954000001ull;  // "SPLIT": valid/train is a function of the text
constexpr size_t kBatchBytes = 1 << 20;
constexpr size_t kBatchDocs = 4096;
constexpr const char* kDamagedProgressHint =
    "the checkpoint of the interrupted run is damaged; pass --overwrite to start over";

enum Split { kTrain = 0, kValid = 1 };
const char* split_name(int s) { return s == kTrain ? "train" : "valid"; }

// Documents handed from the reader to the encoders, and their ids handed on to the writer.
struct Batch {
  uint64_t seq = 0;
  std::string text;               // all documents back to back
  std::vector<size_t> ends;       // end offset of each document in `text`
  std::vector<uint32_t> sources;  // source index per document
  std::vector<uint8_t> splits;    // kTrain / kValid per document
  std::vector<uint32_t> ids;      // encoded ids, back to back
  std::vector<size_t> id_ends;    // end offset of each document in `ids`
};

// A split's packer, its shard writer, and the shards written so far.
struct SplitOutput {
  // `reserve_rows`: a full shard and an eighth (a shard is written once it holds shard_rows rows, after
  // the document that got it there: a long document overshoots).
  SplitOutput(const PackerOptions& po, uint32_t bytes_per_id, uint64_t reserve_rows)
      : writer(po.seq_len, bytes_per_id, po.pad_id, reserve_rows),
        packer(po, [this](const uint32_t* row) { writer.add_row(row); }) {}
  ShardWriter writer;
  Packer packer;
  std::vector<io::ManifestShard> shards;
};

// The hand-offs between the reader (one thread), the encoders (N threads) and the writer (one
// thread). Batches are numbered in input order; the writer takes them in that order, so the output
// does not depend on which encoder finished first. At most `max_in_flight` batches are between
// reading and writing, which bounds memory. The first exception of any thread stops all of them.
class Pipeline {
 public:
  explicit Pipeline(size_t max_in_flight) : max_in_flight_(max_in_flight) {}

  // Reader: numbers `batch` and queues it for encoding, waiting while too many batches are in
  // flight; on success `batch` is replaced by an empty one. False (batch kept) once a thread failed.
  bool push(std::unique_ptr<Batch>& batch) {
    batch->seq = next_seq_++;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return failed_ || in_flight_ < max_in_flight_; });
    if (failed_) return false;
    ++in_flight_;
    todo_.push_back(std::move(batch));
    cv_.notify_all();
    batch = std::make_unique<Batch>();
    return true;
  }
  // Reader: there will be no more batches.
  void finish_input() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      input_finished_ = true;
    }
    cv_.notify_all();
  }
  // Encoder: the next batch to encode; nullptr when the input is exhausted or a thread failed.
  std::unique_ptr<Batch> take_for_encoding() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return failed_ || !todo_.empty() || input_finished_; });
    if (failed_ || (todo_.empty() && input_finished_)) return nullptr;
    std::unique_ptr<Batch> b = std::move(todo_.front());
    todo_.pop_front();
    return b;
  }
  // Encoder: `b` is encoded.
  void encoded(std::unique_ptr<Batch> b) {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t seq = b->seq;
    done_.emplace(seq, std::move(b));
    cv_.notify_all();
  }
  // Writer: batch number `seq` once it is encoded; nullptr when all input is written or a thread failed.
  std::unique_ptr<Batch> take_encoded(uint64_t seq) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock,
             [&] { return failed_ || done_.count(seq) || (input_finished_ && todo_.empty() && in_flight_ == 0); });
    if (failed_) return nullptr;
    auto it = done_.find(seq);
    if (it == done_.end()) return nullptr;
    std::unique_ptr<Batch> b = std::move(it->second);
    done_.erase(it);
    return b;
  }
  // Writer: a batch taken with take_encoded is packed.
  void written() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_;
    }
    cv_.notify_all();
  }
  // Any thread: stops the pipeline; the first error is the one rethrow_failure() throws.
  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = e;
    failed_ = true;
    cv_.notify_all();
  }
  // After all threads joined.
  void rethrow_failure() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  const size_t max_in_flight_;
  uint64_t next_seq_ = 0;  // used by the reader thread only
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Batch>> todo_;
  std::map<uint64_t, std::unique_ptr<Batch>> done_;
  size_t in_flight_ = 0;
  bool input_finished_ = false;
  bool failed_ = false;
  std::exception_ptr error_;
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

Packer::State packer_state_from(const JsonFields& j) {
  Packer::State s;
  s.carry = j.u32_array("carry");
  s.group_count = j.u64("group_count");
  const JsonFields st = j.object("stats");
  s.stats.documents = st.u64("documents");
  s.stats.input_tokens = st.u64("input_tokens");
  s.stats.rows = st.u64("rows");
  s.stats.tokens = st.u64("tokens");
  s.stats.dropped_tokens = st.u64("dropped_tokens");
  s.stats.pad_tokens = st.u64("pad_tokens");
  s.stats.added_special_tokens = st.u64("added_special_tokens");
  return s;
}

void check_output_is_directory(const PrepareOptions& o) {
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec)) {
    throw BadInput("output " + o.out + " exists and is not a directory", "choose another --out");
  }
}

// Refuses to write over something that is not ours to replace; clears our own files on --overwrite.
// The directory exists (DirLock::inside created it). `several_lengths`: o.out is the parent of the
// DATA/seq-LEN datasets, which are checked one by one (a resumed run may have completed some).
void prepare_output_dir(const PrepareOptions& o, bool several_lengths) {
  // Half-written files of a run that was killed (their names are temporary ones): no run is writing
  // them now, this one holds the directory's lock.
  for (const auto& e : fs::directory_iterator(o.out)) {
    if (is_temp_name(e.path().filename().string())) fs::remove_all(e.path());
  }
  bool has_manifest = fs::exists(o.out + "/" + io::kManifestName);
  bool has_progress = fs::exists(o.out + "/" + kProgressName);
  if (o.overwrite) {
    for (const auto& e : fs::directory_iterator(o.out)) {
      std::string name = e.path().filename().string();
      bool ours = name == io::kManifestName || name == kProgressName || name == "tokenizer" ||
                  ((name.rfind("train-", 0) == 0 || name.rfind("valid-", 0) == 0) && e.path().extension() == ".bin");
      // The datasets of a prepare with several --seq-len (DATA/seq-LEN, complete or interrupted).
      bool length_dir = name.rfind("seq-", 0) == 0 &&
                        (fs::exists(e.path() / io::kManifestName) || fs::exists(e.path() / kProgressName));
      if (ours || length_dir) fs::remove_all(e.path());
    }
    return;
  }
  if (has_manifest || (!several_lengths && !lengths_in(o.out).empty())) {
    throw BadInput(o.out + " already holds a prepared dataset",
                   "pass --overwrite to replace it, or choose another --out");
  }
  if (has_progress && !o.resume) {
    throw BadInput(o.out + " holds an interrupted prepare",
                   "pass --resume to continue it, or --overwrite to start over");
  }
}

// Refuses options that cannot make a dataset, before anything is read or written.
void check_options(const PrepareOptions& o) {
  if (o.out.empty()) throw BadInput("no output directory", "pass --out DATA");
  if (o.seq_len < 8) {
    throw BadInput("--seq-len " + std::to_string(o.seq_len) + " is too short", "use 8 or more (BERT uses 128 or 512)");
  }
  if (o.max_positions > kMaxShardSeqLen) {
    throw BadInput("--max-positions " + std::to_string(o.max_positions) + " exceeds the longest sequence a shard holds",
                   "use --max-positions " + std::to_string(kMaxShardSeqLen) + " or less");
  }
  if (o.seq_len > o.max_positions) {
    throw BadInput("--seq-len " + std::to_string(o.seq_len) + " exceeds the model's max_position_embeddings (" +
                       std::to_string(o.max_positions) + ")",
                   "use --seq-len " + std::to_string(o.max_positions) + " or less");
  }
  if (!(o.valid_fraction >= 0 && o.valid_fraction < 1)) throw BadInput("--valid-fraction must be in [0, 1)");
}

// The tokenizer at `path`, which must have the tokens the packer writes: [CLS], [SEP] and [PAD].
tokenizer::Tokenizer load_bert_tokenizer(const std::string& path) {
  tokenizer::Tokenizer tok = tokenizer::load_tokenizer(path);
  const tokenizer::SpecialIds sp = tok.special_ids();
  if (sp.cls < 0 || sp.sep < 0 || sp.pad < 0) {
    throw BadInput("tokenizer " + path + " lacks a [CLS], [SEP] or [PAD] token", "use a BERT tokenizer");
  }
  return tok;
}

PackerOptions packer_options(const PrepareOptions& o, const tokenizer::SpecialIds& sp) {
  PackerOptions po;
  po.mode = o.packing;
  po.seq_len = o.seq_len;
  po.pad_id = uint32_t(sp.pad);
  po.cls_id = uint32_t(sp.cls);
  po.sep_id = uint32_t(sp.sep);
  po.keep_remainder = o.keep_remainder;
  return po;
}

// What the writer thread builds: both splits' packers and shards and the tokens per source, with
// the checkpoint (DATA/progress.json) that lets --resume continue after the last completed train
// shard. `config` (the content options) is recorded in the checkpoint; a resume must match it.
class DatasetWriter {
 public:
  DatasetWriter(const PrepareOptions& o, const PackerOptions& po, uint32_t bytes_per_id, nlohmann::json config)
      : o_(o),
        config_(std::move(config)),
        progress_path_(o.out + "/" + kProgressName),
        outputs_{SplitOutput(po, bytes_per_id, o.shard_rows + o.shard_rows / 8), SplitOutput(po, bytes_per_id, 0)},
        source_tokens_(o.corpus.inputs.size(), 0) {}

  const std::string& progress_path() const { return progress_path_; }

  // Restores the state of the checkpoint; returns the number of documents it covers. Every field is
  // checked: a damaged checkpoint is an error naming the file and the field.
  uint64_t resume() {
    const nlohmann::json p = read_json_file(progress_path_, kDamagedProgressHint);
    const JsonFields root(p, progress_path_, "", kDamagedProgressHint);
    if (root.any("config") != config_) {
      throw BadInput(progress_path_ + " was written with different inputs or options",
                     "resume with exactly the same command, or pass --overwrite to start over");
    }
    docs_done_ = root.u64("documents_done");
    std::vector<uint64_t> source_tokens = root.u64_array("source_tokens");
    if (source_tokens.size() != source_tokens_.size()) {
      root.fail("source_tokens", "has " + std::to_string(source_tokens.size()) + " entries for " +
                                     std::to_string(source_tokens_.size()) + " inputs");
    }
    const JsonFields splits = root.object("splits");
    for (int s : {kTrain, kValid}) {
      const JsonFields split = splits.object(split_name(s));
      outputs_[s].packer.restore(packer_state_from(split.object("packer")));
      outputs_[s].shards = io::shards_from_json(split.array("shards"), progress_path_, split.name("shards"));
    }
    source_tokens_ = std::move(source_tokens);
    documents_written_ = docs_done_;
    return docs_done_;
  }

  // Packs the documents of an encoded batch, whose first document is number `first_doc` of the
  // input; documents this writer's checkpoint already covers are passed over (with several lengths,
  // each length's checkpoint covers its own number of documents). Whenever a train shard is full it
  // is written, with the valid split's pending rows (so that the checkpoint holds only small
  // carry-overs), and checkpointed.
  void add(const Batch& b, uint64_t first_doc) {
    size_t begin = 0;
    for (size_t d = 0; d < b.id_ends.size(); ++d) {
      size_t end = b.id_ends[d];
      if (first_doc + d < docs_done_) {
        begin = end;
        continue;
      }
      outputs_[b.splits[d]].packer.add(b.ids.data() + begin, end - begin);
      source_tokens_[b.sources[d]] += end - begin;
      tokens_written_ += end - begin;
      begin = end;
      ++docs_done_;
      if (outputs_[kTrain].writer.rows() >= o_.shard_rows) {
        write_shard(kTrain);
        write_shard(kValid);
        checkpoint();
      }
    }
    documents_written_ = docs_done_;
  }

  // End of the input: packs each split's remainder and writes its last shard.
  void finish() {
    for (int s : {kTrain, kValid}) {
      outputs_[s].packer.finish();
      write_shard(s);
    }
  }

  // The split's statistics and shards, for the manifest.
  io::ManifestSplit manifest_split(int s) const {
    const PackerStats& st = outputs_[s].packer.stats();
    io::ManifestSplit m;
    m.documents = st.documents;
    for (const io::ManifestShard& sh : outputs_[s].shards) m.sequences += sh.rows;
    m.tokens = st.tokens;
    m.input_tokens = st.input_tokens;
    m.dropped_tokens = st.dropped_tokens;
    m.pad_tokens = st.pad_tokens;
    m.added_special_tokens = st.added_special_tokens;
    m.shards = outputs_[s].shards;
    return m;
  }
  const std::vector<uint64_t>& source_tokens() const { return source_tokens_; }
  // For progress reports from other threads.
  uint64_t documents_written() const { return documents_written_.load(); }
  uint64_t tokens_written() const { return tokens_written_.load(); }

 private:
  void write_shard(int s) {
    SplitOutput& out = outputs_[s];
    if (out.writer.rows() == 0) return;
    std::string file = shard_file(s, out.shards.size());
    uint64_t rows = out.writer.rows();
    std::string digest = out.writer.write(o_.out + "/" + file);
    out.shards.push_back({file, rows, digest});
  }

  void checkpoint() const {
    nlohmann::json p = {{"config", config_}, {"documents_done", docs_done_}, {"source_tokens", source_tokens_}};
    for (int s : {kTrain, kValid}) {
      p["splits"][split_name(s)] = {{"packer", packer_state_json(outputs_[s].packer.state())},
                                    {"shards", io::shards_to_json(outputs_[s].shards)}};
    }
    write_file_atomic(progress_path_, p.dump());
  }

  const PrepareOptions& o_;
  const nlohmann::json config_;
  const std::string progress_path_;
  SplitOutput outputs_[2];
  std::vector<uint64_t> source_tokens_;
  uint64_t docs_done_ = 0;  // documents fully handed to the packers
  std::atomic<uint64_t> documents_written_{0}, tokens_written_{0};
};

// Encoder thread: encodes batches ([CLS] … [SEP] around each document) until the input is exhausted.
void run_encoder(Pipeline& pipe, const tokenizer::Tokenizer& tok) {
  try {
    while (std::unique_ptr<Batch> b = pipe.take_for_encoding()) {
      size_t begin = 0;
      b->ids.clear();
      b->id_ends.clear();
      for (size_t end : b->ends) {
        tok.encode(std::string_view(b->text).substr(begin, end - begin), b->ids, true);
        b->id_ends.push_back(b->ids.size());
        begin = end;
      }
      pipe.encoded(std::move(b));
    }
  } catch (...) {
    pipe.fail(std::current_exception());
  }
}

// Writer thread: packs the encoded batches in input order, for every output length; the first
// batch starts at document `skip`.
void run_writer(Pipeline& pipe, const std::vector<DatasetWriter*>& outs, uint64_t skip) {
  try {
    uint64_t first_doc = skip;
    for (uint64_t next = 0;; ++next) {
      std::unique_ptr<Batch> b = pipe.take_encoded(next);
      if (!b) return;
      for (DatasetWriter* out : outs) out->add(*b, first_doc);
      first_doc += b->ends.size();
      pipe.written();
    }
  } catch (...) {
    pipe.fail(std::current_exception());
  }
}

// Reader (this thread): reads every document, skips the first `skip` (covered by a checkpoint),
// tags the others with their split and hands them to the encoders in batches. Validation documents
// are chosen by a hash of their text, so exact duplicates always land in the same split.
void feed_encoders(text::CorpusReader& reader, Pipeline& pipe, const PrepareOptions& o, uint64_t skip,
                   const std::function<void()>& report_progress) {
  text::Document doc;
  uint64_t read_docs = 0;
  auto batch = std::make_unique<Batch>();
  const double threshold = o.valid_fraction * 0x1.0p64;
  while (reader.next(doc)) {
    if (read_docs++ < skip) continue;  // covered by the checkpoint
    batch->text.append(doc.text);
    batch->ends.push_back(batch->text.size());
    batch->sources.push_back(uint32_t(doc.source_index));
    bool valid = double(hash64(doc.text, kSplitSalt ^ o.split_seed)) < threshold;
    batch->splits.push_back(valid ? kValid : kTrain);
    if (batch->text.size() >= kBatchBytes || batch->ends.size() >= kBatchDocs) {
      if (!pipe.push(batch)) break;
      report_progress();
    }
  }
  if (!batch->ends.empty()) pipe.push(batch);
  if (read_docs < skip) {
    throw BadInput("the inputs hold " + std::to_string(read_docs) + " documents but the checkpoint in " + o.out + "/" +
                       kProgressName + " covers " + std::to_string(skip),
                   "the inputs changed since the interrupted run; pass --overwrite to start over");
  }
}

// Runs the reader (this thread), the encoders and the writer until every document after `skip` is
// packed by every writer in `outs`; rethrows the first failure.
void run_pipeline(const PrepareOptions& o, const tokenizer::Tokenizer& tok, text::CorpusReader& reader,
                  const std::vector<DatasetWriter*>& outs, uint64_t skip,
                  const std::function<void(const PrepareProgress&)>& progress) {
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  Pipeline pipe(2 * size_t(threads) + 2);
  std::vector<std::thread> workers;
  for (unsigned i = 0; i < threads; ++i) workers.emplace_back([&] { run_encoder(pipe, tok); });
  std::thread writer_thread([&] { run_writer(pipe, outs, skip); });
  auto report_progress = [&] {
    if (progress) {
      const DatasetWriter& first = *outs.front();
      progress(
          {reader.disk_bytes_read(), reader.disk_bytes_total(), first.documents_written(), first.tokens_written()});
    }
  };
  std::exception_ptr input_error;
  try {
    feed_encoders(reader, pipe, o, skip, report_progress);
  } catch (...) {
    // A broken input stops the reading, but what was read before it is still encoded and written,
    // so the checkpoints cover as much as possible for --resume.
    input_error = std::current_exception();
  }
  pipe.finish_input();
  for (auto& w : workers) w.join();
  writer_thread.join();
  pipe.rethrow_failure();
  if (input_error) std::rethrow_exception(input_error);
}

io::Manifest build_manifest(const PrepareOptions& o, const tokenizer::Tokenizer& tok, const std::string& vocab_sha,
                            const DatasetWriter& out, const std::vector<text::SourceStats>& stats,
                            const nlohmann::json& config) {
  const tokenizer::SpecialIds sp = tok.special_ids();
  io::Manifest m;
  m.bertpt_version = BERTPT_VERSION;
  m.tokenizer = {o.tokenizer, "tokenizer", vocab_sha};
  m.seq_len = o.seq_len;
  m.vocab_size = tok.vocab_size();
  m.dtype = bytes_per_id_for(tok.vocab_size()) == 2 ? "uint16" : "uint32";
  m.packing = packing_name(o.packing);
  m.keep_remainder = o.keep_remainder;
  m.valid_fraction = o.valid_fraction;
  m.special_ids = {sp.pad, sp.unk, sp.cls, sp.sep, sp.mask};
  m.train = out.manifest_split(kTrain);
  m.valid = out.manifest_split(kValid);
  for (size_t i = 0; i < stats.size(); ++i) {
    m.sources.push_back({stats[i].name, stats[i].documents, out.source_tokens()[i], stats[i].bytes,
                         stats[i].invalid_utf8, stats[i].empty_skipped});
  }
  m.config = config;
  return m;
}

}  // namespace

nlohmann::json PrepareOptions::content_config() const {
  nlohmann::json j = {{"inputs", corpus.inputs},
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
  // Only when set, so that datasets prepared before the flag existed keep their identity.
  if (corpus.skip_bad_files) j["skip_bad_files"] = true;
  if (corpus.namespaces != std::vector<int64_t>{0}) j["namespaces"] = corpus.namespaces;
  if (std::any_of(corpus.encodings.begin(), corpus.encodings.end(), [](const auto& e) { return !e.empty(); })) {
    j["encodings"] = corpus.encodings;
  }
  if (corpus.repair_invalid_utf8) j["repair_invalid_utf8"] = true;
  return j;
}

namespace {

// One dataset being written: its options (seq_len, out and shard_rows its own), its content config,
// and its writer (none when a resumed run finds it already complete).
struct Target {
  PrepareOptions o;
  nlohmann::json config;
  std::unique_ptr<DatasetWriter> writer;
  PrepareResult result;
};

// The target of length `seq_len` in `out`, with its shard size and content config resolved.
std::unique_ptr<Target> make_target(const PrepareOptions& o, uint32_t seq_len, const std::string& out,
                                    uint32_t bytes_per_id, const std::string& vocab_sha) {
  auto t = std::make_unique<Target>();
  t->o = o;
  t->o.seq_len = seq_len;
  t->o.out = out;
  if (t->o.shard_rows == 0) {
    t->o.shard_rows = std::max<uint64_t>(1, (uint64_t(64) << 20) / (uint64_t(seq_len) * bytes_per_id));  // ~64 MiB
  }
  // After shard_rows is resolved: the checkpoint and the manifest record the value used.
  t->config = t->o.content_config();
  t->config["tokenizer_vocab_sha256"] = vocab_sha;
  return t;
}

// With several lengths and --resume: whether `t`'s folder already holds its complete dataset (the
// run was stopped while the manifests were being written).
bool already_complete(const Target& t) {
  if (!t.o.resume || !fs::exists(t.o.out + "/" + io::kManifestName) || fs::exists(t.o.out + "/" + kProgressName)) {
    return false;
  }
  const io::Manifest m = io::read_manifest(t.o.out);
  return m.config == t.config;
}

// The shared part of prepare_dataset and prepare_lengths: one reader and tokenizer, a writer per target.
// `several`: the targets are o.out's DATA/seq-LEN folders, else the one target is o.out itself.
void prepare_targets(const PrepareOptions& o, const tokenizer::Tokenizer& tok, const std::string& vocab_sha,
                     std::vector<std::unique_ptr<Target>>& targets, bool several,
                     const std::function<void(const PrepareProgress&)>& progress) {
  text::CorpusReader reader(o.corpus);  // the inputs exist, before anything is created
  // One prepare per output directory at a time: a second one fails here, before touching anything.
  check_output_is_directory(o);
  const DirLock lock = DirLock::inside(o.out);
  prepare_output_dir(o, several);
  std::vector<DirLock> length_locks;
  std::vector<DatasetWriter*> writers;
  uint64_t skip = UINT64_MAX;
  const uint32_t bytes_per_id = bytes_per_id_for(tok.vocab_size());
  for (auto& t : targets) {
    if (several) {
      length_locks.push_back(DirLock::inside(t->o.out));
      if (already_complete(*t)) continue;
      prepare_output_dir(t->o, false);
    }
    t->writer = std::make_unique<DatasetWriter>(t->o, packer_options(t->o, tok.special_ids()), bytes_per_id, t->config);
    if (t->o.resume && fs::exists(t->writer->progress_path())) t->result.resumed_from_documents = t->writer->resume();
    skip = std::min(skip, t->result.resumed_from_documents);
    writers.push_back(t->writer.get());
  }
  if (writers.empty()) return;  // a resumed run that had written everything
  run_pipeline(o, tok, reader, writers, skip, progress);
  for (DatasetWriter* w : writers) w->finish();
  for (auto& t : targets) {
    if (!t->writer) continue;
    // The tokenizer travels with the data, so the dataset describes itself.
    tokenizer::save_tokenizer(tok, t->o.out + "/tokenizer", t->o.seq_len > 512 ? t->o.seq_len : 512);
    t->result.manifest = build_manifest(t->o, tok, vocab_sha, *t->writer, reader.stats(), t->config);
    io::write_manifest(t->o.out, t->result.manifest);
    std::error_code ec;
    fs::remove(t->writer->progress_path(), ec);
  }
}

std::vector<PrepareResult> run_prepare(const PrepareOptions& o, const std::vector<uint32_t>& lengths, bool one_dir,
                                       const std::function<void(const PrepareProgress&)>& progress) {
  auto t0 = std::chrono::steady_clock::now();
  for (uint32_t len : lengths) {
    PrepareOptions one = o;
    one.seq_len = len;
    check_options(one);
  }
  const tokenizer::Tokenizer tok = load_bert_tokenizer(o.tokenizer);
  const uint32_t bytes_per_id = bytes_per_id_for(tok.vocab_size());
  const std::string vocab_sha = sha256_hex(tokenizer::vocab_txt(tok));
  std::vector<std::unique_ptr<Target>> targets;
  for (uint32_t len : lengths) {
    targets.push_back(make_target(o, len, one_dir ? o.out : length_dir(o.out, len), bytes_per_id, vocab_sha));
  }
  prepare_targets(o, tok, vocab_sha, targets, !one_dir, progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<PrepareResult> results;
  for (auto& t : targets) {
    if (!t->writer) t->result.manifest = io::read_manifest(t->o.out);
    t->result.seconds = seconds;
    results.push_back(std::move(t->result));
  }
  return results;
}

}  // namespace

PrepareResult prepare_dataset(const PrepareOptions& o, const std::function<void(const PrepareProgress&)>& progress) {
  return std::move(run_prepare(o, {o.seq_len}, /*one_dir=*/true, progress).front());
}

std::vector<PrepareResult> prepare_lengths(const PrepareOptions& o, const std::vector<uint32_t>& lengths,
                                           const std::function<void(const PrepareProgress&)>& progress) {
  std::vector<uint32_t> sorted = lengths;
  std::sort(sorted.begin(), sorted.end());
  if (lengths.empty() || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw BadInput("--seq-len lists no length or one twice", "list distinct lengths, e.g. --seq-len 128,512");
  }
  return run_prepare(o, lengths, /*one_dir=*/false, progress);
}

}  // namespace bertpt::data
