#include "io/npy.h"

#include <cstring>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::io {

namespace {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Python's repr of the shape tuple: "()", "(5,)", "(2, 3)".
std::string shape_tuple(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t nbytes) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  const size_t preamble = 10;  // magic (6) + version (2) + header length (2)
  const size_t padded = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(padded - preamble - header.size() - 1, ' ');
  header += '\n';
  if (header.size() > 65535) throw Error(Error::Kind::Internal, "npy: header too long for format version 1.0");
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(data), nbytes);
  return out;
}

void write_npy_int64(const std::string& path, const std::vector<int64_t>& shape, const int64_t* data) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy data is written as little-endian");
  write_file_atomic(path, npy_bytes("<i8", shape, data, size_t(element_count(shape)) * sizeof(int64_t)));
}

void write_npy_float32(const std::string& path, const std::vector<int64_t>& shape, const float* data) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy data is written as little-endian");
  write_file_atomic(path, npy_bytes("<f4", shape, data, size_t(element_count(shape)) * sizeof(float)));
}

}  // namespace bertpt::io
