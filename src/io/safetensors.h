// safetensors (https://github.com/huggingface/safetensors), the checkpoint format transformers
// loads by default. Plain C++: no LibTorch here, so tools and tests can read and write checkpoints
// without it (the torch adapter is src/model/checkpoint.h).
//
// File layout (as the reference implementation writes and reads it; docs/hf-compat.md):
//   u64 LE  N                         header length in bytes
//   N bytes JSON object, space-padded  {"__metadata__":{..}, name: {dtype, shape, data_offsets}, ...}
//   data    little-endian, row-major, tensors back to back, offsets relative to the data start
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bertpt::io {

// In the reference implementation's order (huggingface/safetensors `Dtype`, "increasing
// alignment"): the writer sorts tensors by this order, descending, then by name.
enum class DType { BOOL, U8, I8, I16, F16, BF16, I32, F32, F64, I64 };

// Bytes per element.
size_t dtype_size(DType dtype);
// The name used in the file, e.g. "F32".
const char* dtype_name(DType dtype);
// Parses a file's dtype string; returns false for names this reader does not support.
bool parse_dtype(const std::string& name, DType* dtype);

// A tensor inside an open file (or staged in a writer). `data` points into the mapped file.
struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;
  size_t nbytes = 0;

  int64_t numel() const;
};

// Collects tensors and writes one file. The data is copied at add() time, so callers may free
// their buffers. Tensors are laid out like the reference writer: by DType, last enumerator first
// (larger elements first, so every tensor stays aligned to its element size), then by name; the
// header lists them in file order after "__metadata__" and is padded with spaces to a multiple of
// 8 bytes. The bytes equal the reference writer's for the same tensors and metadata.
class SafetensorsWriter {
 public:
  // Throws BadInput on a duplicate or empty name, or when nbytes != numel * dtype_size.
  void add(const std::string& name, DType dtype, const std::vector<int64_t>& shape, const void* data, size_t nbytes);
  void set_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

  // The whole file as bytes (header + data).
  std::string serialize() const;
  // Writes atomically (temporary name, fsync, rename).
  void write(const std::string& path) const;

 private:
  struct Entry {
    DType dtype;
    std::vector<int64_t> shape;
    std::string bytes;
  };
  std::map<std::string, Entry> tensors_;
  std::map<std::string, std::string> metadata_;
};

// A validated, memory-mapped safetensors file. open() checks everything a loader relies on and
// throws BadInput naming the file (and tensor) on the first problem:
// header length within the file, UTF-8 JSON object, known dtypes, non-negative shapes,
// data_offsets that tile the data section exactly (no gaps, no overlaps, in bounds), and
// numel * dtype_size == end - begin for every tensor.
class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::string& path);
  // Validates bytes already in memory (the buffer must outlive the object); `name` is used in
  // error messages.
  static SafetensorsFile from_buffer(const std::string& name, const uint8_t* data, size_t size);

  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  const std::string& path() const { return path_; }
  // In file order (ascending data offset).
  const std::vector<TensorView>& tensors() const { return tensors_; }
  // nullptr when absent.
  const TensorView* find(const std::string& name) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  SafetensorsFile() = default;
  void parse(const uint8_t* data, size_t size);

  std::string path_;
  void* map_ = nullptr;  // mmap'ed region owned by this object (nullptr for from_buffer)
  size_t map_size_ = 0;
  std::vector<TensorView> tensors_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace bertpt::io
