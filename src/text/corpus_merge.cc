#include "text/corpus_merge.h"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/atomic_file.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/hash_set64.h"
#include "text/byte_sink.h"

namespace bertpt::text {

namespace fs = std::filesystem;

void append_json_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

namespace {

// Seeded keys used by the shuffle and by fractional weights; changing them changes outputs.
constexpr uint64_t kWeightSalt = 0x5745494748540001ull;  // "WEIGHT"
constexpr uint64_t kCopySalt = 0x434f505900000001ull;    // "COPY"

// Spill files of the external shuffle, removed on every exit path.
class Buckets {
 public:
  Buckets(const std::string& out, size_t count) : dir_(out + ".buckets." + std::to_string(::getpid())) {
    fs::create_directories(dir_);
    files_.resize(count, nullptr);
    for (size_t b = 0; b < count; ++b) {
      files_[b] = std::fopen(path(b).c_str(), "w+b");
      if (!files_[b]) throw BadInput("cannot create shuffle bucket " + path(b), "is the output directory writable?");
      std::setvbuf(files_[b], nullptr, _IOFBF, count > 64 ? 1 << 16 : 1 << 20);
    }
  }
  ~Buckets() {
    for (auto* f : files_) {
      if (f) std::fclose(f);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(size_t b) const { return dir_ + "/" + std::to_string(b); }
  size_t count() const { return files_.size(); }

  // Record: [key u64][source u32][length u32][text].
  void add(uint64_t key, uint32_t source, std::string_view text) {
    std::FILE* f = files_[count() == 1 ? 0 : key >> (64 - shift())];
    uint32_t len = static_cast<uint32_t>(text.size());
    if (std::fwrite(&key, 8, 1, f) != 1 || std::fwrite(&source, 4, 1, f) != 1 || std::fwrite(&len, 4, 1, f) != 1 ||
        std::fwrite(text.data(), 1, len, f) != len) {
      throw BadInput("cannot write shuffle bucket in " + dir_, "is the disk full?");
    }
  }

  struct Record {
    uint64_t key;
    uint64_t order;  // arrival order within the bucket: ties in key keep input order
    uint32_t source;
    uint64_t offset;
    uint32_t length;
  };

  // Reads bucket `b` fully, sorted by key.
  void load(size_t b, std::string& bytes, std::vector<Record>& records) {
    std::FILE* f = files_[b];
    if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_END) != 0) throw BadInput("cannot read shuffle bucket " + path(b));
    long size = std::ftell(f);
    std::rewind(f);
    bytes.resize(size_t(size));
    if (size > 0 && std::fread(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
      throw BadInput("cannot read shuffle bucket " + path(b));
    }
    records.clear();
    size_t pos = 0;
    while (pos + 16 <= bytes.size()) {
      Record r{};
      std::memcpy(&r.key, bytes.data() + pos, 8);
      std::memcpy(&r.source, bytes.data() + pos + 8, 4);
      std::memcpy(&r.length, bytes.data() + pos + 12, 4);
      r.offset = pos + 16;
      r.order = records.size();
      records.push_back(r);
      pos += 16 + r.length;
    }
    std::sort(records.begin(), records.end(),
              [](const Record& a, const Record& b) { return a.key != b.key ? a.key < b.key : a.order < b.order; });
    std::fclose(f);
    files_[b] = nullptr;
    std::remove(path(b).c_str());
  }

 private:
  int shift() const {
    int s = 0;
    while ((size_t(1) << s) < files_.size()) ++s;
    return s;
  }
  std::string dir_;
  std::vector<std::FILE*> files_;
};

size_t bucket_count(uint64_t disk_bytes, size_t bucket_bytes) {
  // Compressed inputs expand; assume up to 4x so buckets stay within the memory target.
  uint64_t estimate = disk_bytes * 4;
  size_t count = 1;
  while (count < 4096 && estimate / count > bucket_bytes) count *= 2;
  return count;
}

void check_stop(const MergeOptions& options) {
  if (options.stop_requested && options.stop_requested()) throw MergeStopped();
}

// Whether `name` is "NAME.buckets.PID", a bucket directory of a merge into NAME.
bool is_bucket_dir_name(const std::string& name, const std::string& out_name) {
  const std::string prefix = out_name + ".buckets.";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  return name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

uint64_t bytes_under(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) {
    const uintmax_t n = fs::file_size(p, ec);
    return ec ? 0 : n;
  }
  uint64_t total = 0;
  for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

// What merges into the same output that were killed left beside it — bucket directories
// (OUT.buckets.PID) and an unfinished output (OUT.tmp.PID.N) — is removed: with the output's lock
// held, no other merge is writing them.
void remove_leftovers(const std::string& out, MergeResult& result) {
  const fs::path path(out);
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const std::string name = path.filename().string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string entry = e.path().filename().string();
    std::string target;
    if (!is_bucket_dir_name(entry, name) && !(is_temp_name(entry, &target) && target == name)) continue;
    const uint64_t bytes = bytes_under(e.path());
    fs::remove_all(e.path(), ec);
    if (ec) throw BadInput("cannot remove " + e.path().string() + ", left by an interrupted merge: " + ec.message());
    result.leftovers_removed.push_back(e.path().string());
    result.leftover_bytes_removed += bytes;
  }
}

// Fails early when the output cannot be created: no path, or a parent directory that is missing.
void check_output_path(const std::string& out) {
  if (out.empty()) throw BadInput("no output given", "pass --out merged.jsonl (or .jsonl.zst)");
  fs::path parent = fs::path(out).parent_path();
  if (!parent.empty() && !fs::is_directory(parent)) {
    throw BadInput("output directory " + parent.string() + " does not exist", "create it first");
  }
}

// A per-source option: `values` for the first sources, `fallback` for the others.
template <typename T>
std::vector<T> per_source(const std::vector<T>& values, T fallback, size_t n_sources, const char* flag) {
  if (values.size() > n_sources) {
    throw BadInput(std::string(flag) + " is given for " + std::to_string(values.size()) +
                   " sources but there are only " + std::to_string(n_sources) + " --input");
  }
  std::vector<T> v(n_sources, fallback);
  for (size_t i = 0; i < values.size(); ++i) v[i] = values[i];
  return v;
}

constexpr double kMaxWeight = 1000;

std::string format_weight(double w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", w);
  return buf;
}

// --max-docs and --weight, one value per source.
struct SourceLimits {
  std::vector<uint64_t> max_docs;  // 0 = no limit
  std::vector<double> weight;

  explicit SourceLimits(const MergeOptions& options) {
    const std::vector<std::string>& inputs = options.corpus.inputs;
    max_docs = per_source(options.max_docs, uint64_t(0), inputs.size(), "--max-docs");
    weight = per_source(options.weight, 1.0, inputs.size(), "--weight");
    for (size_t i = 0; i < inputs.size(); ++i) {
      // A weight is copies of each document: beyond kMaxWeight it would write for days, not mix corpora.
      if (!(weight[i] >= 0 && weight[i] <= kMaxWeight)) {
        throw BadInput("--weight for " + inputs[i] + " is " + format_weight(weight[i]) + ", must be in [0, " +
                           format_weight(kMaxWeight) + "]",
                       "a weight is how many copies of each document to write; 2 doubles a source, 0.5 halves it");
      }
    }
  }
};

// Copies of the `index`-th kept document of `source`: the integer part of the weight, plus one more
// with probability equal to the fractional part, decided by a hash so that it is deterministic.
uint64_t copies_of(double weight, uint64_t seed, uint64_t index, size_t source) {
  uint64_t copies = uint64_t(weight);
  double frac = weight - double(copies);
  if (frac > 0) {
    double u = double(mix64(seed ^ kWeightSalt ^ mix64(index ^ (uint64_t(source) << 48))) >> 11) * 0x1.0p-53;
    copies += u < frac;
  }
  return copies;
}

// Writes {"text": …, "source": …} lines to the sink and counts them in `result`.
class LineWriter {
 public:
  LineWriter(ByteSink& sink, const std::vector<std::string>& sources, MergeResult& result)
      : sink_(sink), sources_(sources), result_(result) {}

  void write(std::string_view text, size_t source) {
    line_.clear();
    line_.append("{\"text\":");
    append_json_string(line_, text);
    line_.append(",\"source\":");
    append_json_string(line_, sources_[source]);
    line_.append("}\n");
    sink_.write(line_);
    ++result_.written;
    ++result_.written_per_source[source];
  }

 private:
  ByteSink& sink_;
  const std::vector<std::string>& sources_;
  MergeResult& result_;
  std::string line_;
};

// Reads every document; drops duplicates (--dedup) and what --max-docs excludes; writes each kept
// document as many times as its weight says, or with --shuffle spills the copies to `buckets` under
// a seeded key.
void merge_documents(const MergeOptions& options, const SourceLimits& limits, CorpusReader& reader, LineWriter& out,
                     Buckets* buckets, MergeResult& result, const MergeProgress& progress) {
  std::vector<uint64_t> kept(options.corpus.inputs.size(), 0);  // unique documents taken per source
  HashSet64 seen;
  Document doc;
  uint64_t docs_seen = 0;
  while (reader.next(doc)) {
    check_stop(options);
    size_t s = doc.source_index;
    if (options.dedup && !seen.insert(hash64(doc.text))) {
      ++result.duplicates;
      continue;
    }
    uint64_t copies = copies_of(limits.weight[s], options.seed, kept[s]++, s);
    for (uint64_t c = 0; c < copies; ++c) {
      if (buckets) {
        uint64_t key = mix64(hash64(doc.text, options.seed) ^ mix64(c * kCopySalt));
        buckets->add(key, uint32_t(s), doc.text);
      } else {
        out.write(doc.text, s);
      }
    }
    if (limits.max_docs[s] && kept[s] >= limits.max_docs[s]) reader.skip_rest_of_source();
    if (progress && (++docs_seen & 1023) == 0) {
      progress({reader.disk_bytes_read(), reader.disk_bytes_total(), result.written, reader.total().pages});
    }
  }
}

// --shuffle: writes the spilled documents bucket by bucket, each in key order.
void write_buckets(const MergeOptions& options, Buckets& buckets, const CorpusReader& reader, LineWriter& out,
                   const MergeResult& result, const MergeProgress& progress) {
  std::string bytes;
  std::vector<Buckets::Record> records;
  for (size_t b = 0; b < buckets.count(); ++b) {
    check_stop(options);
    buckets.load(b, bytes, records);
    for (const auto& r : records) {
      check_stop(options);
      out.write(std::string_view(bytes.data() + r.offset, r.length), r.source);
    }
    if (progress)
      progress({reader.disk_bytes_total(), reader.disk_bytes_total(), result.written, reader.total().pages});
  }
}

}  // namespace

MergeResult merge_corpus(const MergeOptions& options, const MergeProgress& progress) {
  check_output_path(options.out);
  const DirLock lock = DirLock::beside(options.out);  // a second merge into the same output fails here
  MergeResult result;
  remove_leftovers(options.out, result);
  CorpusReader reader(options.corpus);
  const SourceLimits limits(options);

  result.written_per_source.assign(options.corpus.inputs.size(), 0);
  auto sink = open_byte_sink(options.out, compression_for_path(options.out), options.compression_level);
  std::unique_ptr<Buckets> buckets;
  if (options.shuffle) {
    // A stream's size is unknown: as many buckets as for 16 GiB of input, so that none outgrows memory.
    size_t count = bucket_count(reader.has_streams() ? uint64_t(16) << 30 : reader.disk_bytes_total(),
                                options.shuffle_memory_bytes);
    buckets = std::make_unique<Buckets>(options.out, count);
    result.buckets = buckets->count();
  }
  LineWriter out(*sink, options.corpus.inputs, result);
  merge_documents(options, limits, reader, out, buckets.get(), result, progress);
  if (buckets) write_buckets(options, *buckets, reader, out, result, progress);
  if (result.written == 0) {
    throw BadInput("nothing to write: every document was dropped by --max-docs/--weight/--dedup",
                   "check the per-source limits and weights");
  }
  sink->finish();
  result.bytes_written = sink->bytes_written();
  result.sources = reader.stats();
  result.total = reader.total();
  return result;
}

}  // namespace bertpt::text
