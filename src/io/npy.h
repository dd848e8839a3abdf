// NumPy's .npy format, version 1.0, for int64 and float32 arrays: what `numpy.load` reads. Used to
// hand bertpt's batches (--dump-batches) and vectors (embed --output x.npy) to Python unchanged.
//
// Layout (numpy.lib.format, version 1.0):
//   "\x93NUMPY" 0x01 0x00          magic and version
//   u16 LE  H                      header length; 10 + H is a multiple of 64
//   H bytes ASCII Python dict      {'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), } padded
//                                  with spaces and ended by '\n'
//   data    little-endian, C (row-major) order
// Plain C++ (no LibTorch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bertpt::io {

// The whole file for `shape` and little-endian element bytes `data` of dtype `descr` ("<i8", "<f4").
std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t nbytes);

// Writes `path` atomically (a temporary file renamed into place).
void write_npy_int64(const std::string& path, const std::vector<int64_t>& shape, const int64_t* data);
void write_npy_float32(const std::string& path, const std::vector<int64_t>& shape, const float* data);

}  // namespace bertpt::io
