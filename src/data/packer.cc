#include "data/packer.h"

#include <algorithm>

#include "common/error.h"

namespace bertpt::data {

Packing parse_packing(const std::string& name) {
  if (name == "concat") return Packing::Concat;
  if (name == "guide") return Packing::Guide;
  if (name == "document") return Packing::Document;
  throw BadInput("unknown packing '" + name + "'", "use one of: concat, guide, document");
}

const char* packing_name(Packing p) {
  switch (p) {
    case Packing::Concat: return "concat";
    case Packing::Guide: return "guide";
    case Packing::Document: return "document";
  }
  return "?";
}

Packer::Packer(PackerOptions options, RowSink sink) : options_(options), sink_(std::move(sink)) {
  if (options_.seq_len < 8)
    throw BadInput("seq_len " + std::to_string(options_.seq_len) + " is too short", "use 8 or more");
  row_.resize(options_.seq_len);
}

void Packer::emit_row(const uint32_t* ids, size_t real) {
  std::copy(ids, ids + real, row_.begin());
  std::fill(row_.begin() + long(real), row_.end(), options_.pad_id);
  stats_.rows++;
  stats_.tokens += real;
  stats_.pad_tokens += options_.seq_len - real;
  sink_(row_.data());
}

void Packer::emit_full_rows() {
  const size_t L = options_.seq_len;
  size_t done = 0;
  while (carry_.size() - done >= L) {
    emit_row(carry_.data() + done, L);
    done += L;
  }
  carry_.erase(carry_.begin(), carry_.begin() + long(done));
}

void Packer::add(const uint32_t* ids, size_t n) {
  stats_.documents++;
  stats_.input_tokens += n;
  const size_t L = options_.seq_len;
  switch (options_.mode) {
    case Packing::Concat:
      carry_.insert(carry_.end(), ids, ids + n);
      emit_full_rows();
      break;
    case Packing::Guide: {
      if (n > L) {
        // truncation=True keeps [CLS] + the first L-2 tokens and re-appends [SEP].
        carry_.insert(carry_.end(), ids, ids + L - 1);
        carry_.push_back(options_.sep_id);
        stats_.dropped_tokens += n - L;
      } else {
        carry_.insert(carry_.end(), ids, ids + n);
      }
      if (++group_count_ == options_.group_docs) {
        emit_full_rows();
        stats_.dropped_tokens += carry_.size();
        carry_.clear();
        group_count_ = 0;
      }
      break;
    }
    case Packing::Document: {
      // Content between the document's own [CLS] and [SEP].
      const uint32_t* body = ids;
      size_t m = n;
      if (m && body[0] == options_.cls_id) {
        ++body;
        --m;
      }
      if (m && body[m - 1] == options_.sep_id) --m;
      const size_t piece = L - 2;
      size_t pieces = std::max<size_t>(1, (m + piece - 1) / piece);
      stats_.added_special_tokens += 2 * pieces - std::min<size_t>(n - m, 2);
      for (size_t p = 0; p < pieces; ++p) {
        size_t b = p * piece, len = std::min(piece, m - std::min(m, b));
        carry_.clear();
        carry_.push_back(options_.cls_id);
        carry_.insert(carry_.end(), body + b, body + b + len);
        carry_.push_back(options_.sep_id);
        emit_row(carry_.data(), carry_.size());
      }
      carry_.clear();
      break;
    }
  }
}

void Packer::finish() {
  if (options_.mode == Packing::Guide) {
    emit_full_rows();  // the last (partial) group is grouped and cut like the others
    stats_.dropped_tokens += carry_.size();
    carry_.clear();
    group_count_ = 0;
    return;
  }
  if (carry_.empty()) return;
  if (options_.keep_remainder) {
    emit_row(carry_.data(), carry_.size());
  } else {
    stats_.dropped_tokens += carry_.size();
  }
  carry_.clear();
}

Packer::State Packer::state() const { return State{carry_, group_count_, stats_}; }

void Packer::restore(const State& s) {
  carry_ = s.carry;
  group_count_ = s.group_count;
  stats_ = s.stats;
}

}  // namespace bertpt::data
