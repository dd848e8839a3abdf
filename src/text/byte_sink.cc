#include "text/byte_sink.h"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <vector>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::text {

namespace {

constexpr size_t kOutChunk = 1 << 18;

class SinkBase : public ByteSink {
 public:
  explicit SinkBase(const std::string& path) : file_(path), out_(kOutChunk) {}
  uint64_t bytes_written() const override { return written_; }

 protected:
  [[noreturn]] void fail(const std::string& what) {
    throw Error(Error::Kind::Internal, "compressing " + file_.path() + ": " + what);
  }
  AtomicFile file_;
  std::vector<unsigned char> out_;
  uint64_t written_ = 0;
};

class PlainSink final : public SinkBase {
 public:
  using SinkBase::SinkBase;
  void write(std::string_view d) override {
    file_.write(d);
    written_ += d.size();
  }
  void finish() override { file_.commit(); }
};

class GzipSink final : public SinkBase {
 public:
  GzipSink(const std::string& path, int level) : SinkBase(path) {
    std::memset(&zs_, 0, sizeof zs_);
    if (deflateInit2(&zs_, level < 0 ? 6 : level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) fail("init");
  }
  ~GzipSink() override { deflateEnd(&zs_); }
  void write(std::string_view d) override {
    written_ += d.size();
    pump(d, Z_NO_FLUSH);
  }
  void finish() override {
    pump({}, Z_FINISH);
    file_.commit();
  }

 private:
  void pump(std::string_view d, int flush) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(d.data()));
    zs_.avail_in = static_cast<uInt>(d.size());
    for (;;) {
      zs_.next_out = out_.data();
      zs_.avail_out = static_cast<uInt>(out_.size());
      int rc = deflate(&zs_, flush);
      if (rc == Z_STREAM_ERROR) fail("deflate");
      file_.write(out_.data(), out_.size() - zs_.avail_out);
      if (flush == Z_FINISH ? rc == Z_STREAM_END : zs_.avail_in == 0 && zs_.avail_out != 0) break;
    }
  }
  z_stream zs_;
};

class ZstdSink final : public SinkBase {
 public:
  ZstdSink(const std::string& path, int level) : SinkBase(path), cs_(ZSTD_createCStream()) {
    if (!cs_) fail("init");
    ZSTD_initCStream(cs_, level < 0 ? 3 : level);
  }
  ~ZstdSink() override { ZSTD_freeCStream(cs_); }
  void write(std::string_view d) override {
    written_ += d.size();
    ZSTD_inBuffer in{d.data(), d.size(), 0};
    while (in.pos < in.size) {
      ZSTD_outBuffer o{out_.data(), out_.size(), 0};
      size_t rc = ZSTD_compressStream(cs_, &o, &in);
      if (ZSTD_isError(rc)) fail(ZSTD_getErrorName(rc));
      file_.write(out_.data(), o.pos);
    }
  }
  void finish() override {
    for (;;) {
      ZSTD_outBuffer o{out_.data(), out_.size(), 0};
      size_t rc = ZSTD_endStream(cs_, &o);
      if (ZSTD_isError(rc)) fail(ZSTD_getErrorName(rc));
      file_.write(out_.data(), o.pos);
      if (rc == 0) break;
    }
    file_.commit();
  }

 private:
  ZSTD_CStream* cs_;
};

class XzSink final : public SinkBase {
 public:
  XzSink(const std::string& path, int level) : SinkBase(path) {
    if (lzma_easy_encoder(&ls_, uint32_t(level < 0 ? 6 : level), LZMA_CHECK_CRC64) != LZMA_OK) fail("init");
  }
  ~XzSink() override { lzma_end(&ls_); }
  void write(std::string_view d) override {
    written_ += d.size();
    pump(d, LZMA_RUN);
  }
  void finish() override {
    pump({}, LZMA_FINISH);
    file_.commit();
  }

 private:
  void pump(std::string_view d, lzma_action action) {
    ls_.next_in = reinterpret_cast<const uint8_t*>(d.data());
    ls_.avail_in = d.size();
    for (;;) {
      ls_.next_out = out_.data();
      ls_.avail_out = out_.size();
      lzma_ret rc = lzma_code(&ls_, action);
      if (rc != LZMA_OK && rc != LZMA_STREAM_END) fail("lzma error " + std::to_string(int(rc)));
      file_.write(out_.data(), out_.size() - ls_.avail_out);
      if (action == LZMA_FINISH ? rc == LZMA_STREAM_END : ls_.avail_in == 0 && ls_.avail_out != 0) break;
    }
  }
  lzma_stream ls_ = LZMA_STREAM_INIT;
};

class Bzip2Sink final : public SinkBase {
 public:
  Bzip2Sink(const std::string& path, int level) : SinkBase(path) {
    std::memset(&bz_, 0, sizeof bz_);
    if (BZ2_bzCompressInit(&bz_, level < 1 ? 9 : level, 0, 0) != BZ_OK) fail("init");
  }
  ~Bzip2Sink() override { BZ2_bzCompressEnd(&bz_); }
  void write(std::string_view d) override {
    written_ += d.size();
    bz_.next_in = const_cast<char*>(d.data());
    bz_.avail_in = static_cast<unsigned>(d.size());
    while (bz_.avail_in > 0) {
      bz_.next_out = reinterpret_cast<char*>(out_.data());
      bz_.avail_out = static_cast<unsigned>(out_.size());
      if (BZ2_bzCompress(&bz_, BZ_RUN) != BZ_RUN_OK) fail("bzip2 compress");
      file_.write(out_.data(), out_.size() - bz_.avail_out);
    }
  }
  void finish() override {
    int rc;
    do {
      bz_.next_out = reinterpret_cast<char*>(out_.data());
      bz_.avail_out = static_cast<unsigned>(out_.size());
      rc = BZ2_bzCompress(&bz_, BZ_FINISH);
      if (rc != BZ_FINISH_OK && rc != BZ_STREAM_END) fail("bzip2 finish");
      file_.write(out_.data(), out_.size() - bz_.avail_out);
    } while (rc != BZ_STREAM_END);
    file_.commit();
  }

 private:
  bz_stream bz_;
};

}  // namespace

Compression compression_for_path(const std::string& path) {
  if (path.ends_with(".gz")) return Compression::Gzip;
  if (path.ends_with(".zst") || path.ends_with(".zstd")) return Compression::Zstd;
  if (path.ends_with(".xz")) return Compression::Xz;
  if (path.ends_with(".bz2")) return Compression::Bzip2;
  return Compression::None;
}

std::unique_ptr<ByteSink> open_byte_sink(const std::string& path, Compression c, int level) {
  switch (c) {
    case Compression::Gzip: return std::make_unique<GzipSink>(path, level);
    case Compression::Zstd: return std::make_unique<ZstdSink>(path, level);
    case Compression::Xz: return std::make_unique<XzSink>(path, level);
    case Compression::Bzip2: return std::make_unique<Bzip2Sink>(path, level);
    case Compression::None: break;
  }
  return std::make_unique<PlainSink>(path);
}

}  // namespace bertpt::text
