#include "tokenizer/word_counter.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "common/error.h"
#include "tokenizer/pre_tokenizers/bert.h"

namespace bertpt::tokenizer {

namespace {

// Documents packed back to back; ends[i] is the end offset of document i in text.
struct Batch {
  std::string text;
  std::vector<size_t> ends;
};

// The hand-off between the reading thread and the workers, plus the epoch barrier.
class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}

  // Blocks while the queue is full. Returns false when a worker failed.
  bool push(Batch&& b) {
    std::unique_lock<std::mutex> lk(mu_);
    space_.wait(lk, [&] { return queue_.size() < capacity_ || failed_; });
    if (failed_) return false;
    queue_.push_back(std::move(b));
    work_.notify_one();
    return true;
  }

  // Blocks until a batch is available (true) or the input is finished or failed (false).
  bool pop(Batch& b) {
    std::unique_lock<std::mutex> lk(mu_);
    work_.wait(lk, [&] { return !queue_.empty() || closed_ || failed_; });
    if (failed_ || queue_.empty()) return false;
    b = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    space_.notify_one();
    return true;
  }

  void done_with_batch() {
    std::lock_guard<std::mutex> lk(mu_);
    --busy_;
    if (queue_.empty() && busy_ == 0) idle_.notify_all();
  }

  // Blocks until every pushed batch has been processed (the workers then wait in pop(), so their
  // tables may be read by the caller). Returns false when a worker failed.
  bool wait_idle() {
    std::unique_lock<std::mutex> lk(mu_);
    idle_.wait(lk, [&] { return (queue_.empty() && busy_ == 0) || failed_; });
    return !failed_;
  }

  void close() {
    std::lock_guard<std::mutex> lk(mu_);
    closed_ = true;
    work_.notify_all();
  }

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lk(mu_);
    if (!error_) error_ = e;
    failed_ = true;
    work_.notify_all();
    space_.notify_all();
    idle_.notify_all();
  }

  std::exception_ptr error() {
    std::lock_guard<std::mutex> lk(mu_);
    return error_;
  }

 private:
  std::mutex mu_;
  std::condition_variable work_, space_, idle_;
  std::deque<Batch> queue_;
  size_t capacity_;
  size_t busy_ = 0;
  bool closed_ = false;
  bool failed_ = false;
  std::exception_ptr error_;
};

// Normalizes, pre-tokenizes and counts the documents of every batch it pops into `counts`, until the
// queue is closed; an error fails the queue (the reading thread rethrows it).
void count_batches(BatchQueue& queue, const BertNormalizer& normalizer, const WordCountOptions& options,
                   WordCounts& counts, std::atomic<uint64_t>& words_counted) {
  try {
    std::string scratch;
    std::vector<std::string_view> words;
    Words custom_words;
    Batch b;
    while (queue.pop(b)) {
      const uint64_t before = counts.total();
      size_t begin = 0;
      for (size_t end : b.ends) {
        const std::string_view doc = std::string_view(b.text).substr(begin, end - begin);
        if (options.pre_tokenizer) {
          count_document_words(doc, options.custom_normalizer.get(), *options.pre_tokenizer, counts, scratch,
                               custom_words);
        } else {
          count_document_words(doc, normalizer, counts, scratch, words);
        }
        begin = end;
      }
      words_counted.fetch_add(counts.total() - before, std::memory_order_relaxed);
      queue.done_with_batch();
    }
  } catch (...) {
    queue.fail(std::current_exception());
  }
}

// Folds the workers' tables into the global one and prunes it down to max_words when over.
void fold_and_prune(std::vector<WordCounts>& local, size_t max_words, WordCountResult& result) {
  for (WordCounts& l : local) result.words.absorb(std::move(l));
  if (result.words.size() > max_words) {
    const WordCounts::PruneResult p = result.words.prune_to(max_words);
    result.pruned_words += p.words;
    result.pruned_occurrences += p.occurrences;
    result.pruned_max_count = std::max(result.pruned_max_count, p.max_count);
    ++result.prune_rounds;
  }
}

// Reads the corpus on the calling thread and hands it to the workers in batches of about
// options.batch_bytes; at every epoch boundary (options.epoch_bytes of text) waits until the workers
// are idle and calls `end_epoch`. Stops early when a worker failed; throws the reader's errors.
void feed_workers(text::CorpusReader& reader, BatchQueue& queue, const WordCountOptions& options,
                  const CountProgress& progress, const std::atomic<uint64_t>& words_counted,
                  const std::function<void()>& end_epoch) {
  text::Document doc;
  Batch batch;
  uint64_t epoch_fill = 0;
  uint64_t documents = 0;
  bool ok = true;
  auto flush = [&]() -> bool {
    if (batch.ends.empty()) return true;
    const bool pushed = queue.push(std::move(batch));
    batch = Batch{};
    batch.text.reserve(options.batch_bytes + 4096);
    return pushed;
  };
  while (ok && reader.next(doc)) {
    batch.text.append(doc.text);
    batch.ends.push_back(batch.text.size());
    epoch_fill += doc.text.size();
    ++documents;
    if (batch.text.size() >= options.batch_bytes) {
      ok = flush();
      if (progress) {
        progress(CountProgressInfo{reader.disk_bytes_read(), reader.disk_bytes_total(), documents,
                                   words_counted.load(std::memory_order_relaxed)});
      }
    }
    if (ok && epoch_fill >= options.epoch_bytes) {
      // Epoch boundary: a point in the document stream, not in time, so every thread count
      // prunes the same table.
      ok = flush() && queue.wait_idle();
      if (ok) end_epoch();
      epoch_fill = 0;
    }
  }
  if (ok) flush();
}

}  // namespace

void count_document_words(std::string_view text, const BertNormalizer& normalizer, WordCounts& counts,
                          std::string& scratch, std::vector<std::string_view>& words) {
  scratch.clear();
  normalizer.normalize(text, scratch);
  words.clear();
  bert_pre_tokenize(scratch, words);
  for (std::string_view w : words) counts.add(w);
}

void count_document_words(std::string_view text, const Normalizer* normalizer, const PreTokenizer& pre_tokenizer,
                          WordCounts& counts, std::string& scratch, Words& words) {
  std::string_view normalized = text;
  if (normalizer) {
    scratch.clear();
    normalizer->normalize(text, scratch);
    normalized = scratch;
  }
  words.reset(normalized, true);
  pre_tokenizer.pre_tokenize(words);
  for (size_t i = 0; i < words.size(); ++i) {
    if (!words[i].empty()) counts.add(words[i]);
  }
}

WordCountResult count_words(const text::CorpusOptions& corpus, const WordCountOptions& options,
                            const CountProgress& progress) {
  if (options.max_words == 0) throw BadInput("--max-words must be at least 1");
  WordCountResult result;
  size_t threads = options.threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  result.threads = threads;

  text::CorpusReader reader(corpus);
  const BertNormalizer normalizer(options.normalizer);
  std::vector<WordCounts> local(threads);
  std::atomic<uint64_t> words_counted{0};
  BatchQueue queue(threads * 2);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back(count_batches, std::ref(queue), std::cref(normalizer), std::cref(options), std::ref(local[t]),
                         std::ref(words_counted));
  }

  std::exception_ptr reader_error;
  try {
    feed_workers(reader, queue, options, progress, words_counted,
                 [&] { fold_and_prune(local, options.max_words, result); });
  } catch (...) {
    reader_error = std::current_exception();
    queue.fail(reader_error);
  }
  queue.close();
  for (std::thread& w : workers) w.join();
  if (reader_error) std::rethrow_exception(reader_error);
  if (std::exception_ptr e = queue.error()) std::rethrow_exception(e);
  fold_and_prune(local, options.max_words, result);

  result.sources = reader.stats();
  result.corpus = reader.total();
  if (progress) {
    progress(CountProgressInfo{reader.disk_bytes_read(), reader.disk_bytes_total(), result.corpus.documents,
                               result.words.total() + result.pruned_occurrences});
  }
  return result;
}

}  // namespace bertpt::tokenizer
