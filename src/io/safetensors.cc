#include "io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::io {

namespace {

// The reference implementation refuses headers above this size; so do we, so a corrupt length
// field cannot make us allocate gigabytes.
constexpr uint64_t kMaxHeaderSize = 100'000'000;

struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::BOOL, "BOOL", 1}, {DType::U8, "U8", 1},     {DType::I8, "I8", 1},   {DType::I16, "I16", 2},
    {DType::F16, "F16", 2},   {DType::BF16, "BF16", 2}, {DType::I32, "I32", 4}, {DType::F32, "F32", 4},
    {DType::F64, "F64", 8},   {DType::I64, "I64", 8},
};

const DTypeInfo& info(DType dtype) {
  for (const auto& d : kDTypes) {
    if (d.dtype == dtype) return d;
  }
  throw Error(Error::Kind::Internal, "unknown safetensors dtype enum");
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// numel * element size, or false on overflow / negative dims.
bool byte_size(const std::vector<int64_t>& shape, size_t elem, uint64_t* out) {
  uint64_t n = elem;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return false;
  }
  *out = n;
  return true;
}

void put_u64_le(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

size_t dtype_size(DType dtype) { return info(dtype).size; }
const char* dtype_name(DType dtype) { return info(dtype).name; }

bool parse_dtype(const std::string& name, DType* dtype) {
  for (const auto& d : kDTypes) {
    if (name == d.name) {
      *dtype = d.dtype;
      return true;
    }
  }
  return false;
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// ---- writer

void SafetensorsWriter::add(const std::string& name, DType dtype, const std::vector<int64_t>& shape, const void* data,
                            size_t nbytes) {
  if (name.empty() || name == "__metadata__") {
    throw BadInput("safetensors: invalid tensor name '" + name + "'");
  }
  if (tensors_.count(name)) throw BadInput("safetensors: tensor '" + name + "' added twice");
  uint64_t expected = 0;
  if (!byte_size(shape, dtype_size(dtype), &expected) || expected != nbytes) {
    throw BadInput("safetensors: tensor '" + name + "' has shape " + shape_string(shape) + " and dtype " +
                   dtype_name(dtype) + " but " + std::to_string(nbytes) + " bytes of data");
  }
  Entry e{dtype, shape, std::string(static_cast<const char*>(data), nbytes)};
  tensors_.emplace(name, std::move(e));
}

std::string SafetensorsWriter::serialize() const {
  // File order: dtype descending in the reference's enum order (larger elements first, which keeps
  // each tensor aligned to its element size as the data section starts 8-aligned), then by name.
  std::vector<const std::pair<const std::string, Entry>*> order;
  for (const auto& kv : tensors_) order.push_back(&kv);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return static_cast<int>(a->second.dtype) > static_cast<int>(b->second.dtype);
  });

  // The header is built by hand so that keys appear in file order (nlohmann's object sorts keys);
  // names and metadata strings go through nlohmann for correct escaping.
  auto quote = [](const std::string& s) { return nlohmann::json(s).dump(); };
  std::string header = "{";
  bool first = true;
  if (!metadata_.empty()) {
    header += "\"__metadata__\":{";
    bool mfirst = true;
    for (const auto& [k, v] : metadata_) {
      header += (mfirst ? "" : ",") + quote(k) + ":" + quote(v);
      mfirst = false;
    }
    header += "}";
    first = false;
  }
  uint64_t offset = 0;
  for (const auto* kv : order) {
    const Entry& e = kv->second;
    std::string shape = "[";
    for (size_t i = 0; i < e.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(e.shape[i]);
    shape += "]";
    header += (first ? "" : ",") + quote(kv->first) + ":{\"dtype\":\"" + dtype_name(e.dtype) + "\",\"shape\":" + shape +
              ",\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + e.bytes.size()) + "]}";
    offset += e.bytes.size();
    first = false;
  }
  header += "}";
  // Pad so the data section starts 8-aligned (the length prefix is 8 bytes too).
  while (header.size() % 8) header.push_back(' ');

  std::string out;
  out.reserve(8 + header.size() + offset);
  put_u64_le(out, header.size());
  out += header;
  for (const auto* kv : order) out += kv->second.bytes;
  return out;
}

void SafetensorsWriter::write(const std::string& path) const {
  // serialize() holds a second copy of the data; fine for BERT sizes (≤ 1.3 GB for bert-large fp32)
  // and keeps a single code path for bytes-on-disk and bytes-in-tests.
  write_file_atomic(path, serialize());
}

// ---- reader

SafetensorsFile::SafetensorsFile(SafetensorsFile&& o) noexcept { *this = std::move(o); }

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& o) noexcept {
  if (this != &o) {
    if (map_) ::munmap(map_, map_size_);
    path_ = std::move(o.path_);
    map_ = std::exchange(o.map_, nullptr);
    map_size_ = std::exchange(o.map_size_, 0);
    tensors_ = std::move(o.tensors_);
    index_ = std::move(o.index_);
    metadata_ = std::move(o.metadata_);
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() {
  if (map_) ::munmap(map_, map_size_);
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  SafetensorsFile f;
  f.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the checkpoint path");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw BadInput("cannot stat " + path + ": " + std::strerror(err));
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size > 0) {
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      throw BadInput("cannot map " + path + ": " + std::strerror(err));
    }
    f.map_ = m;
    f.map_size_ = size;
  }
  ::close(fd);
  f.parse(static_cast<const uint8_t*>(f.map_), size);
  return f;
}

SafetensorsFile SafetensorsFile::from_buffer(const std::string& name, const uint8_t* data, size_t size) {
  SafetensorsFile f;
  f.path_ = name;
  f.parse(data, size);
  return f;
}

const TensorView* SafetensorsFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

namespace {

constexpr const char* kCorruptHint =
    "the file is not a valid safetensors file (truncated or corrupt?); re-save the checkpoint";

// The header length (the first 8 bytes), checked against the file size and the reference limit.
uint64_t read_header_length(const std::string& p, const uint8_t* data, size_t size) {
  if (size < 8) {
    throw BadInput(p + ": not a safetensors file: " + std::to_string(size) +
                       " bytes, shorter than the 8-byte header length",
                   kCorruptHint);
  }
  uint64_t n = get_u64_le(data);
  if (n > kMaxHeaderSize) {
    throw BadInput(p + ": safetensors header length " + std::to_string(n) + " is larger than the " +
                       std::to_string(kMaxHeaderSize) + "-byte limit",
                   kCorruptHint);
  }
  if (n > size - 8) {
    throw BadInput(p + ": safetensors header length " + std::to_string(n) + " runs past the end of the file (" +
                       std::to_string(size) + " bytes)",
                   kCorruptHint);
  }
  if (n < 2 || data[8] != '{') throw BadInput(p + ": safetensors header does not start with '{'", kCorruptHint);
  return n;
}

// The header's JSON object. Duplicate top-level keys would silently shadow each other in a JSON
// object, so they are refused.
nlohmann::json parse_header(const std::string& p, const uint8_t* begin, const uint8_t* end) {
  std::set<std::string> seen;
  std::string duplicate;
  nlohmann::json::parser_callback_t cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& j) {
    if (depth == 1 && ev == nlohmann::json::parse_event_t::key && duplicate.empty()) {
      const auto& k = j.get_ref<const std::string&>();
      if (!seen.insert(k).second) duplicate = k;
    }
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(begin, end, cb);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
    throw BadInput(p + ": safetensors header is not valid JSON: " + e.what(), kCorruptHint);
  }
  if (!header.is_object()) throw BadInput(p + ": safetensors header is not a JSON object", kCorruptHint);
  if (!duplicate.empty()) throw BadInput(p + ": safetensors header lists '" + duplicate + "' twice", kCorruptHint);
  return header;
}

// "__metadata__": an object of strings.
std::map<std::string, std::string> read_metadata(const std::string& p, const nlohmann::json& entry) {
  if (!entry.is_object()) throw BadInput(p + ": safetensors __metadata__ is not an object", kCorruptHint);
  std::map<std::string, std::string> metadata;
  for (const auto& [k, v] : entry.items()) {
    if (!v.is_string()) throw BadInput(p + ": safetensors __metadata__['" + k + "'] is not a string", kCorruptHint);
    metadata[k] = v.get<std::string>();
  }
  return metadata;
}

// Where a tensor's bytes lie in the data section, and its position in the header.
struct Span {
  uint64_t begin, end;
  size_t index;
};

// dtype (known) and shape (non-negative dimensions) of a tensor entry.
void read_dtype_and_shape(const std::string& where, const nlohmann::json& entry, TensorView& t) {
  auto dt = entry.find("dtype");
  auto sh = entry.find("shape");
  if (!dt->is_string() || !parse_dtype(dt->get<std::string>(), &t.dtype)) {
    throw BadInput(where + ": unsupported dtype " + dt->dump(),
                   "supported: BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64");
  }
  if (!sh->is_array()) throw BadInput(where + ": shape is not an array", kCorruptHint);
  for (const auto& d : *sh) {
    if (!d.is_number_unsigned()) {
      throw BadInput(where + ": shape " + sh->dump() + " has a non-integer or negative dimension", kCorruptHint);
    }
    uint64_t v = d.get<uint64_t>();
    if (v > static_cast<uint64_t>(INT64_MAX)) throw BadInput(where + ": shape dimension too large", kCorruptHint);
    t.shape.push_back(static_cast<int64_t>(v));
  }
}

// data_offsets of a tensor entry: in order, inside the data section, and as long as shape and dtype
// need.
Span read_data_offsets(const std::string& where, const nlohmann::json& entry, const TensorView& t, uint64_t data_size) {
  const nlohmann::json& off = entry.at("data_offsets");
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
    throw BadInput(where + ": data_offsets " + off.dump() + " is not a pair of non-negative integers", kCorruptHint);
  }
  uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
  if (b > e) throw BadInput(where + ": data_offsets " + off.dump() + " end before they begin", kCorruptHint);
  if (e > data_size) {
    throw BadInput(where + ": data_offsets " + off.dump() + " run past the end of the data (" +
                       std::to_string(data_size) + " bytes; file truncated?)",
                   kCorruptHint);
  }
  uint64_t expected = 0;
  if (!byte_size(t.shape, dtype_size(t.dtype), &expected) || expected != e - b) {
    throw BadInput(where + ": shape " + shape_string(t.shape) + " of " + dtype_name(t.dtype) + " needs " +
                       std::to_string(expected) + " bytes but data_offsets " + off.dump() + " hold " +
                       std::to_string(e - b),
                   kCorruptHint);
  }
  return {b, e, 0};
}

// One tensor entry of the header; `data` is the start of the data section.
TensorView read_tensor_entry(const std::string& p, const std::string& name, const nlohmann::json& entry,
                             const uint8_t* data, uint64_t data_size, Span& span) {
  const std::string where = p + ": tensor '" + name + "'";
  if (!entry.is_object()) throw BadInput(where + ": entry is not an object", kCorruptHint);
  if (!entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets")) {
    throw BadInput(where + ": entry needs dtype, shape and data_offsets", kCorruptHint);
  }
  TensorView t;
  t.name = name;
  read_dtype_and_shape(where, entry, t);
  span = read_data_offsets(where, entry, t, data_size);
  t.data = data + span.begin;
  t.nbytes = static_cast<size_t>(span.end - span.begin);
  return t;
}

// The data section must be tiled exactly: sorted by begin, each tensor starts where the previous
// one ended, the first at 0 and the last ending at the end of the file. Sorts `spans`.
void check_tiling(const std::string& p, std::vector<Span>& spans, const std::vector<TensorView>& tensors,
                  uint64_t data_size) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t expect = 0;
  for (const Span& s : spans) {
    const std::string& nm = tensors[s.index].name;
    if (s.begin < expect) {
      throw BadInput(p + ": tensor '" + nm + "' overlaps the previous tensor (data_offsets begin at " +
                         std::to_string(s.begin) + ", previous ends at " + std::to_string(expect) + ")",
                     kCorruptHint);
    }
    if (s.begin > expect) {
      throw BadInput(p + ": gap in the data before tensor '" + nm + "' (begins at " + std::to_string(s.begin) +
                         ", expected " + std::to_string(expect) + ")",
                     kCorruptHint);
    }
    expect = s.end;
  }
  if (expect != data_size) {
    throw BadInput(p + ": " + std::to_string(data_size - expect) +
                       " trailing bytes after the last tensor (the header says the data is " + std::to_string(expect) +
                       " bytes, the file holds " + std::to_string(data_size) + ")",
                   kCorruptHint);
  }
}

}  // namespace

void SafetensorsFile::parse(const uint8_t* data, size_t size) {
  const std::string& p = path_;
  const uint64_t n = read_header_length(p, data, size);
  const nlohmann::json header = parse_header(p, data + 8, data + 8 + n);
  const uint64_t data_size = size - 8 - n;
  const uint8_t* base = data + 8 + n;
  std::vector<Span> spans;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      metadata_ = read_metadata(p, entry);
      continue;
    }
    Span span{};
    tensors_.push_back(read_tensor_entry(p, name, entry, base, data_size, span));
    span.index = tensors_.size() - 1;
    spans.push_back(span);
  }
  check_tiling(p, spans, tensors_, data_size);

  // Present tensors in file order, which is also what a re-save reproduces.
  std::vector<TensorView> ordered;
  ordered.reserve(tensors_.size());
  for (const Span& s : spans) ordered.push_back(std::move(tensors_[s.index]));
  tensors_ = std::move(ordered);
  for (size_t i = 0; i < tensors_.size(); ++i) index_[tensors_[i].name] = i;
}

}  // namespace bertpt::io
