#include "tokenizer/line_processor.h"

#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

#include "common/error.h"

namespace bertpt::tokenizer {

LineInput::LineInput(const std::string& path) : path_(path) {
  if (path != "-") source_ = text::open_byte_source(path);
}

size_t LineInput::read(char* buf, size_t cap) {
  if (source_) return source_->read(buf, cap);
  const size_t n = std::fread(buf, 1, cap, stdin);
  if (n == 0 && std::ferror(stdin)) throw BadInput("stdin: read error");
  return n;
}

LineOutput::LineOutput(const std::string& path) {
  if (path != "-") file_ = std::make_unique<AtomicFile>(path);
}

void LineOutput::write(std::string_view s) {
  if (file_) {
    file_->write(s);
  } else if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) {
    throw BadInput("stdout: write error");
  }
}

void LineOutput::commit() {
  if (file_) {
    file_->commit();
  } else {
    std::fflush(stdout);
  }
}

namespace {

constexpr size_t kBatchBytes = 4u << 20;

// Appends up to kBatchBytes of `in` to `buf`; false at the end of the input.
bool fill_batch(LineInput& in, std::string& buf) {
  const size_t start = buf.size();
  buf.resize(start + kBatchBytes);
  size_t got = 0;
  bool more = true;
  while (got < kBatchBytes) {  // sources may return short reads
    const size_t n = in.read(buf.data() + start + got, kBatchBytes - got);
    if (n == 0) {
      more = false;
      break;
    }
    got += n;
  }
  buf.resize(start + got);
  return more;
}

// Runs `work` over `lines`, split into `threads` contiguous ranges, and writes the ranges in order.
void process_batch(const std::vector<std::string_view>& lines, LineOutput& out, unsigned threads,
                   std::vector<std::string>& outs, const LineWork& work) {
  const unsigned used = static_cast<unsigned>(std::min<size_t>(threads, lines.size()));
  auto run = [&](unsigned t) {
    const size_t lo = lines.size() * t / used, hi = lines.size() * (t + 1) / used;
    std::string& o = outs[t];
    o.clear();
    for (size_t i = lo; i < hi; ++i) {
      work(lines[i], o, t);
      o.push_back('\n');
    }
  };
  if (used == 1) {
    run(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < used; ++t) pool.emplace_back(run, t);
    run(0);
    for (auto& th : pool) th.join();
  }
  for (unsigned t = 0; t < used; ++t) out.write(outs[t]);
}

}  // namespace

uint64_t process_lines(LineInput& in, LineOutput& out, unsigned threads, const LineWork& work) {
  threads = std::max(threads, 1u);
  std::string buf, tail;
  std::vector<std::string_view> lines;
  std::vector<std::string> outs(threads);
  uint64_t count = 0;
  bool eof = false;
  while (!eof) {
    buf.swap(tail);
    tail.clear();
    eof = !fill_batch(in, buf);
    // Complete lines go now; a partial last line waits for the next batch.
    size_t end = buf.size();
    if (!eof) {
      const size_t nl = buf.rfind('\n');
      end = nl == std::string::npos ? 0 : nl + 1;
      tail.assign(buf, end, std::string::npos);
      if (end == 0) continue;  // one line longer than a batch: keep reading
    }
    lines.clear();
    for (size_t pos = 0; pos < end;) {
      size_t nl = buf.find('\n', pos);
      if (nl == std::string::npos || nl >= end) nl = end;
      lines.emplace_back(buf.data() + pos, nl - pos);
      pos = nl + 1;
    }
    if (lines.empty()) continue;
    process_batch(lines, out, threads, outs, work);
    count += lines.size();
  }
  return count;
}

}  // namespace bertpt::tokenizer
