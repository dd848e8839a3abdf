#include "text/byte_source.h"

#include <bzlib.h>
#include <fcntl.h>
#include <lzma.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "common/stop_request.h"
#include "text/multistream_bzip2.h"

namespace bertpt::text {

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::None: return "none";
    case Compression::Gzip: return "gzip";
    case Compression::Zstd: return "zstd";
    case Compression::Xz: return "xz";
    case Compression::Bzip2: return "bzip2";
  }
  return "?";
}

Compression detect_compression(const unsigned char* h, size_t n) {
  if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) return Compression::Gzip;
  if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd) return Compression::Zstd;
  if (n >= 6 && h[0] == 0xfd && h[1] == '7' && h[2] == 'z' && h[3] == 'X' && h[4] == 'Z' && h[5] == 0)
    return Compression::Xz;
  if (n >= 4 && h[0] == 'B' && h[1] == 'Z' && h[2] == 'h' && h[3] >= '1' && h[3] <= '9') return Compression::Bzip2;
  return Compression::None;
}

namespace {

constexpr size_t kInputChunk = 1 << 18;

// Regular files, and the streams a shell hands over: pipes (FIFOs, `<(…)`) and character devices
// (/dev/stdin on a terminal).
bool readable_kind(mode_t mode) { return S_ISREG(mode) || S_ISFIFO(mode) || S_ISCHR(mode); }

// Unbuffered reads of the file itself; decoders pull compressed chunks from it.
class RawFile {
 public:
  explicit RawFile(const std::string& path) : path_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the path and its permissions");
    }
    // A refused kind is never opened. A FIFO is opened without blocking and then waited for, as `cat`
    // waits for its writer, but in a wait that a stop signal ends (wait_for_input).
    if (!readable_kind(st.st_mode)) refuse(st.st_mode);
    const bool fifo = S_ISFIFO(st.st_mode);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
    if (fd_ < 0) {
      throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the path and its permissions");
    }
    if (::fstat(fd_, &st) != 0 || !readable_kind(st.st_mode)) {
      ::close(fd_);
      fd_ = -1;
      refuse(st.st_mode);
    }
    stream_ = !S_ISREG(st.st_mode);
    if (fifo) {
      try {
        wait_for_input(true);
        const int flags = ::fcntl(fd_, F_GETFL);
        if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
          throw BadInput("cannot read " + path_ + ": " + std::strerror(errno));
        }
      } catch (...) {
        ::close(fd_);
        fd_ = -1;
        throw;
      }
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (!stream_) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~RawFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;

  size_t read(void* buf, size_t n) {
    if (stream_) wait_for_input(false);
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        bytes_ += uint64_t(got);
        return size_t(got);
      }
      if (errno == EINTR) continue;
      throw BadInput("cannot read " + path_ + ": " + std::strerror(errno));
    }
  }
  uint64_t bytes() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  // Until the stream has bytes (or its end) to read. Throws Interrupted when a stop signal asks to stop
  // meanwhile: a signal is restarted out of a blocking open() or read(), never out of poll(), which
  // the handler's thread leaves with EINTR and every other thread within kStopCheckMs.
  void wait_for_input(bool opening) const {
    static constexpr int kStopCheckMs = 100;
    for (;;) {
      struct pollfd p = {fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, kStopCheckMs);
      if (ready > 0) return;  // bytes, the writer's end (POLLHUP) or an error, for read() to tell
      if (ready < 0 && errno != EINTR) throw BadInput("cannot read " + path_ + ": " + std::strerror(errno));
      if (const int sig = stop_signal()) {
        throw Interrupted(sig, opening ? "waiting for input from " + path_ +
                                             " (a FIFO or pipe that no writer has opened or written to yet)"
                                       : "waiting for more input from " + path_ + " (a stream)");
      }
    }
  }

  [[noreturn]] void refuse(mode_t mode) const {
    throw BadInput(path_ + " is " + file_kind_in_words(mode) + ", not a file or a stream",
                   "give a regular file, a pipe, or - for standard input");
  }

  std::string path_;
  int fd_ = -1;
  bool stream_ = false;  // a FIFO, a pipe or a character device: reads may wait
  uint64_t bytes_ = 0;
};

// Shared state of the decoders: the file, a compressed input buffer with the sniffed head already in
// it, and the running count of decompressed bytes for error messages.
class DecoderBase : public ByteSource {
 public:
  DecoderBase(std::unique_ptr<RawFile> file, std::vector<unsigned char> head, Compression c)
      : file_(std::move(file)), in_(std::move(head)), compression_(c) {
    in_.reserve(kInputChunk);
  }
  uint64_t disk_bytes_read() const override { return file_->bytes(); }
  Compression compression() const override { return compression_; }

 protected:
  // Refills the input buffer when it is drained; false at end of file.
  bool refill() {
    if (in_pos_ < in_.size()) return true;
    in_.resize(kInputChunk);
    size_t got = file_->read(in_.data(), in_.size());
    in_.resize(got);
    in_pos_ = 0;
    return got > 0;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw BadInput(file_->path() + ": " + compression_name(compression_) + " data is " + what + " after " +
                       std::to_string(produced_) + " decompressed bytes",
                   "the file is truncated or corrupt; re-download or re-compress it");
  }

  std::unique_ptr<RawFile> file_;
  std::vector<unsigned char> in_;
  size_t in_pos_ = 0;
  uint64_t produced_ = 0;
  Compression compression_;
};

class PlainSource final : public DecoderBase {
 public:
  using DecoderBase::DecoderBase;
  size_t read(char* out, size_t cap) override {
    if (in_pos_ < in_.size()) {  // the sniffed head first
      size_t n = std::min(cap, in_.size() - in_pos_);
      std::memcpy(out, in_.data() + in_pos_, n);
      in_pos_ += n;
      produced_ += n;
      return n;
    }
    size_t n = file_->read(out, cap);
    produced_ += n;
    return n;
  }
};

class GzipSource final : public DecoderBase {
 public:
  GzipSource(std::unique_ptr<RawFile> f, std::vector<unsigned char> head)
      : DecoderBase(std::move(f), std::move(head), Compression::Gzip) {
    std::memset(&zs_, 0, sizeof zs_);
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) fail("unreadable (zlib init failed)");
  }
  ~GzipSource() override { inflateEnd(&zs_); }

  size_t read(char* out, size_t cap) override {
    if (finished_) return 0;
    cap = std::min<size_t>(cap, 1u << 30);  // zlib counts in 32 bits
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(cap);
    while (zs_.avail_out > 0) {
      if (in_pos_ >= in_.size() && !refill()) {
        if (in_stream_) fail("truncated");
        finished_ = true;
        break;
      }
      zs_.next_in = in_.data() + in_pos_;
      zs_.avail_in = static_cast<uInt>(in_.size() - in_pos_);
      in_stream_ = true;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      in_pos_ = in_.size() - zs_.avail_in;
      if (rc == Z_STREAM_END) {
        in_stream_ = false;
        inflateReset(&zs_);  // a concatenated member may follow
      } else if (rc == Z_BUF_ERROR) {
        continue;  // needs more input
      } else if (rc != Z_OK) {
        fail(std::string("corrupt (") + (zs_.msg ? zs_.msg : "inflate error") + ")");
      }
    }
    size_t n = cap - zs_.avail_out;
    produced_ += n;
    return n;
  }

 private:
  z_stream zs_;
  bool in_stream_ = false;
  bool finished_ = false;
};

class ZstdSource final : public DecoderBase {
 public:
  ZstdSource(std::unique_ptr<RawFile> f, std::vector<unsigned char> head)
      : DecoderBase(std::move(f), std::move(head), Compression::Zstd), ds_(ZSTD_createDStream()) {
    if (!ds_) fail("unreadable (zstd init failed)");
    ZSTD_initDStream(ds_);
  }
  ~ZstdSource() override { ZSTD_freeDStream(ds_); }

  size_t read(char* out, size_t cap) override {
    ZSTD_outBuffer ob{out, cap, 0};
    while (ob.pos < ob.size) {
      if (in_pos_ >= in_.size() && !refill()) {
        if (!frame_done_) fail("truncated");
        break;
      }
      ZSTD_inBuffer ib{in_.data(), in_.size(), in_pos_};
      size_t rc = ZSTD_decompressStream(ds_, &ob, &ib);
      in_pos_ = ib.pos;
      if (ZSTD_isError(rc)) fail(std::string("corrupt (") + ZSTD_getErrorName(rc) + ")");
      frame_done_ = (rc == 0);
    }
    produced_ += ob.pos;
    return ob.pos;
  }

 private:
  ZSTD_DStream* ds_;
  bool frame_done_ = true;
};

class XzSource final : public DecoderBase {
 public:
  XzSource(std::unique_ptr<RawFile> f, std::vector<unsigned char> head)
      : DecoderBase(std::move(f), std::move(head), Compression::Xz) {
    if (lzma_stream_decoder(&ls_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) fail("unreadable (xz init failed)");
  }
  ~XzSource() override { lzma_end(&ls_); }

  size_t read(char* out, size_t cap) override {
    if (finished_) return 0;
    ls_.next_out = reinterpret_cast<uint8_t*>(out);
    ls_.avail_out = cap;
    while (ls_.avail_out > 0) {
      lzma_action action = LZMA_RUN;
      if (in_pos_ >= in_.size() && !refill()) action = LZMA_FINISH;
      ls_.next_in = in_.data() + in_pos_;
      ls_.avail_in = in_.size() - in_pos_;
      lzma_ret rc = lzma_code(&ls_, action);
      in_pos_ = in_.size() - ls_.avail_in;
      if (rc == LZMA_STREAM_END) {
        finished_ = true;
        break;
      }
      if (rc == LZMA_BUF_ERROR && action == LZMA_FINISH) fail("truncated");
      if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) fail("corrupt (lzma error " + std::to_string(int(rc)) + ")");
    }
    size_t n = cap - ls_.avail_out;
    produced_ += n;
    return n;
  }

 private:
  lzma_stream ls_ = LZMA_STREAM_INIT;
  bool finished_ = false;
};

class Bzip2Source final : public DecoderBase {
 public:
  Bzip2Source(std::unique_ptr<RawFile> f, std::vector<unsigned char> head)
      : DecoderBase(std::move(f), std::move(head), Compression::Bzip2) {
    std::memset(&bz_, 0, sizeof bz_);
    if (BZ2_bzDecompressInit(&bz_, 0, 0) != BZ_OK) fail("unreadable (bzip2 init failed)");
  }
  ~Bzip2Source() override { BZ2_bzDecompressEnd(&bz_); }

  size_t read(char* out, size_t cap) override {
    if (finished_) return 0;
    cap = std::min<size_t>(cap, 1u << 30);  // libbz2 counts in 32 bits
    bz_.next_out = out;
    bz_.avail_out = static_cast<unsigned>(cap);
    while (bz_.avail_out > 0) {
      if (in_pos_ >= in_.size() && !refill()) {
        if (in_stream_) fail("truncated");
        finished_ = true;
        break;
      }
      bz_.next_in = reinterpret_cast<char*>(in_.data() + in_pos_);
      bz_.avail_in = static_cast<unsigned>(in_.size() - in_pos_);
      in_stream_ = true;
      int rc = BZ2_bzDecompress(&bz_);
      in_pos_ = in_.size() - bz_.avail_in;
      if (rc == BZ_STREAM_END) {
        // Concatenated streams (pbzip2) may follow: restart the decoder where the output stands.
        in_stream_ = false;
        char* next_out = bz_.next_out;
        unsigned avail_out = bz_.avail_out;
        BZ2_bzDecompressEnd(&bz_);
        std::memset(&bz_, 0, sizeof bz_);
        if (BZ2_bzDecompressInit(&bz_, 0, 0) != BZ_OK) fail("unreadable (bzip2 init failed)");
        bz_.next_out = next_out;
        bz_.avail_out = avail_out;
      } else if (rc != BZ_OK) {
        fail("corrupt (bzip2 error " + std::to_string(rc) + ")");
      }
    }
    size_t n = cap - bz_.avail_out;
    produced_ += n;
    return n;
  }

 private:
  bz_stream bz_;
  bool in_stream_ = false;
  bool finished_ = false;
};

}  // namespace

static bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

const char* file_kind_in_words(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, size_t threads) {
  auto file = std::make_unique<RawFile>(path);
  std::vector<unsigned char> head(8);
  size_t got = 0;
  while (got < head.size()) {
    size_t n = file->read(head.data() + got, head.size() - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  switch (detect_compression(head.data(), head.size())) {
    case Compression::Gzip: return std::make_unique<GzipSource>(std::move(file), std::move(head));
    case Compression::Zstd: return std::make_unique<ZstdSource>(std::move(file), std::move(head));
    case Compression::Xz: return std::make_unique<XzSource>(std::move(file), std::move(head));
    case Compression::Bzip2:
      if (threads > 1 && is_regular_file(path)) {  // the parallel reader seeks
        if (auto multistream = open_multistream_bzip2(path, threads)) return multistream;
      }
      return std::make_unique<Bzip2Source>(std::move(file), std::move(head));
    case Compression::None: break;
  }
  return std::make_unique<PlainSource>(std::move(file), std::move(head), Compression::None);
}

}  // namespace bertpt::text
