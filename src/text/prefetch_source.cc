#include "text/prefetch_source.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bertpt::text {

namespace {

constexpr size_t kChunk = 1 << 18;
constexpr size_t kChunks = 4;

class PrefetchSource final : public ByteSource {
 public:
  explicit PrefetchSource(std::unique_ptr<ByteSource> inner)
      : inner_(std::move(inner)), compression_(inner_->compression()), pool_(kChunks) {
    for (auto& c : pool_) c.data.resize(kChunk);
    for (size_t i = 0; i < kChunks; ++i) free_.push_back(i);
    worker_ = std::thread([this] { produce(); });
  }

  ~PrefetchSource() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  size_t read(char* out, size_t cap) override {
    size_t done = 0;
    while (done < cap) {
      if (current_ == kNone) {
        std::unique_lock<std::mutex> lock(mu_);
        if (done > 0 && filled_.empty()) break;  // return what we have rather than wait
        cv_.wait(lock, [&] { return !filled_.empty() || finished_; });
        if (filled_.empty()) {
          if (error_) std::rethrow_exception(error_);
          break;
        }
        current_ = filled_.front();
        filled_.pop_front();
        offset_ = 0;
      }
      Chunk& c = pool_[current_];
      size_t n = std::min(cap - done, c.size - offset_);
      std::memcpy(out + done, c.data.data() + offset_, n);
      done += n;
      offset_ += n;
      if (offset_ == c.size) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          free_.push_back(current_);
        }
        cv_.notify_all();
        current_ = kNone;
      }
    }
    return done;
  }

  uint64_t disk_bytes_read() const override { return disk_bytes_.load(std::memory_order_relaxed); }
  Compression compression() const override { return compression_; }

 private:
  struct Chunk {
    std::vector<char> data;
    size_t size = 0;
  };
  static constexpr size_t kNone = size_t(-1);

  void produce() {
    for (;;) {
      size_t slot;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
        if (stop_) return;
        slot = free_.front();
        free_.pop_front();
      }
      size_t n = 0;
      std::exception_ptr error;
      try {
        n = inner_->read(pool_[slot].data.data(), kChunk);
      } catch (...) {
        error = std::current_exception();
      }
      disk_bytes_.store(inner_->disk_bytes_read(), std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(mu_);
        pool_[slot].size = n;
        if (n > 0) {
          filled_.push_back(slot);
        } else {
          free_.push_back(slot);
        }
        if (error || n == 0) {
          error_ = error;
          finished_ = true;
        }
      }
      cv_.notify_all();
      if (error || n == 0) return;
    }
  }

  std::unique_ptr<ByteSource> inner_;
  Compression compression_;
  std::vector<Chunk> pool_;
  std::deque<size_t> free_, filled_;
  size_t current_ = kNone, offset_ = 0;  // consumer side only
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, finished_ = false;
  std::exception_ptr error_;
  std::atomic<uint64_t> disk_bytes_{0};
  std::thread worker_;
};

}  // namespace

std::unique_ptr<ByteSource> prefetch(std::unique_ptr<ByteSource> inner) {
  return std::make_unique<PrefetchSource>(std::move(inner));
}

}  // namespace bertpt::text
