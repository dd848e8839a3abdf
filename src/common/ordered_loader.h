// Loads numbered units (row groups, blocks) on worker threads ahead of one consumer that takes them in
// order 0, 1, 2, …: at most `window` units are loaded or held beyond the one the consumer asked for
// last, so memory stays bounded however many units there are. A load that throws is rethrown to the
// consumer when it asks for that unit (or a later one); units before it are delivered first.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace bertpt {

template <typename Unit>
class OrderedLoader {
 public:
  // load(i, worker) returns unit i, or nullopt when there is no unit i (the end: units are only ever
  // asked for in increasing order, and none after an end). `worker` (0..threads-1) lets a loader
  // keep per-thread state. With threads == 1, load is called in order 0, 1, 2, … from one thread.
  using LoadFn = std::function<std::optional<Unit>(size_t index, size_t worker)>;

  OrderedLoader(LoadFn load, size_t threads, size_t window) : load_(std::move(load)), window_(window) {
    if (window_ < threads) window_ = threads;
    for (size_t w = 0; w < threads; ++w) workers_.emplace_back([this, w] { work(w); });
  }

  ~OrderedLoader() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  OrderedLoader(const OrderedLoader&) = delete;
  OrderedLoader& operator=(const OrderedLoader&) = delete;

  // Unit `next` (0, 1, 2, … across calls), or nullopt after the last one.
  std::optional<Unit> next() {
    std::unique_lock<std::mutex> lock(mu_);
    size_t i = consumed_++;
    cv_.notify_all();  // the window moved
    cv_.wait(lock, [&] { return ready_.count(i) || (error_ && error_index_ <= i) || (ended_ && end_index_ <= i); });
    auto it = ready_.find(i);
    if (it != ready_.end()) {
      std::optional<Unit> u = std::move(it->second);
      ready_.erase(it);
      return u;
    }
    if (error_ && error_index_ <= i) std::rethrow_exception(error_);
    return std::nullopt;
  }

 private:
  void work(size_t worker) {
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || done_claiming() || claimed_ < consumed_ + window_; });
        if (stop_ || done_claiming()) return;
        i = claimed_++;
      }
      std::optional<Unit> u;
      std::exception_ptr error;
      try {
        u = load_(i, worker);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (error) {
        if (!error_ || i < error_index_) error_ = error, error_index_ = i;
      } else if (u) {
        ready_.emplace(i, std::move(*u));
      } else if (!ended_ || i < end_index_) {
        ended_ = true, end_index_ = i;
      }
      cv_.notify_all();
    }
  }

  // Caller holds mu_.
  bool done_claiming() const { return (ended_ && claimed_ >= end_index_) || (error_ && claimed_ >= error_index_); }

  LoadFn load_;
  size_t window_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<size_t, Unit> ready_;
  size_t claimed_ = 0, consumed_ = 0;
  bool ended_ = false, stop_ = false;
  size_t end_index_ = 0, error_index_ = 0;
  std::exception_ptr error_;
  std::vector<std::thread> workers_;
};

// The sequential step inside OrderedLoader loads whose input is a stream (a dump's XML, a compressed
// file): take(i, f) waits until the loads of every lower index have taken their turn, runs f, and
// hands the turn to index i + 1 — also when f throws, so no later load waits forever. Each index
// takes its turn once; the rest of a load runs outside the turn, in parallel with the others.
class InOrderTurns {
 public:
  template <typename F>
  decltype(auto) take(size_t index, F&& f) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return next_ == index; });
    struct Pass {  // destroyed before `lock`: the turn moves on while the mutex is still held
      InOrderTurns& t;
      ~Pass() {
        ++t.next_;
        t.cv_.notify_all();
      }
    } pass{*this};
    return f();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;
};

}  // namespace bertpt
