#include "tokenizer/normalizers/bert.h"

#include <algorithm>
#include <vector>

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

namespace uc = unicode;

void append_utf8_3(std::string& out, uint32_t cp) {  // cp in U+0800..U+FFFF
  out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
  out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
}

// Canonical ordering (part of NFD) for the marks that strip_accents keeps. Dropping the Mn marks
// after a stable sort by combining class leaves the survivors in the same order as sorting the
// survivors alone, so only survivors with a non-zero class are tracked. They sit contiguously at
// the end of `out` (nothing else is emitted inside a run of marks).
class MarkRun {
 public:
  void clear() { marks_.clear(); }

  // Re-sorts the marks of out[start..] (just emitted) into the current run.
  void place(std::string& out, size_t start) {
    size_t i = start;
    while (i < out.size()) {
      size_t len;
      const uint32_t cp = uc::decode_utf8(reinterpret_cast<const unsigned char*>(out.data()) + i, out.size() - i, len);
      const uint8_t ccc = uc::survivor_ccc(cp);
      if (ccc == 0) {
        marks_.clear();  // a starter ends the run (decompositions put starters first)
        i += len;
        continue;
      }
      size_t pos = marks_.size();
      while (pos > 0 && marks_[pos - 1].ccc > ccc) --pos;
      size_t offset = i;
      if (pos < marks_.size()) {
        // Move this mark in front of the marks with a higher class.
        offset = marks_[pos].offset;
        std::rotate(out.begin() + offset, out.begin() + i, out.begin() + i + len);
        for (size_t k = pos; k < marks_.size(); ++k) marks_[k].offset += len;
      }
      marks_.insert(marks_.begin() + pos, Mark{ccc, offset});
      i += len;
    }
  }

 private:
  struct Mark {
    uint8_t ccc;
    size_t offset;
  };
  std::vector<Mark> marks_;  // allocates only when such a mark is met (rare scripts)
};

}  // namespace

BertNormalizer::BertNormalizer(NormalizerOptions options)
    : options_(options), strip_accents_(options.strip_accents.value_or(options.lowercase)) {
  for (int b = 0; b < 128; ++b) {
    const uint32_t f = uc::lookup(b);
    int16_t v = static_cast<int16_t>(b);
    if (options_.clean_text && (f & uc::kDelete)) {
      v = -1;
    } else if (options_.clean_text && (f & uc::kSpace)) {
      v = ' ';
    } else if (options_.lowercase && b >= 'A' && b <= 'Z') {
      v = static_cast<int16_t>(b + ('a' - 'A'));
    }
    ascii_[b] = v;
  }
}

void BertNormalizer::normalize(std::string_view utf8, std::string& out) const {
  const bool clean = options_.clean_text;
  const bool chinese = options_.handle_chinese_chars;
  const bool lower = options_.lowercase;
  const bool strip = strip_accents_;
  const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
  const size_t n = utf8.size();
  out.reserve(out.size() + n + 8);
  MarkRun run;

  // Emits `cp` (UTF-8 `src`) through strip_accents and lowercase, the last two steps.
  auto emit = [&](uint32_t cp, uint32_t entry, std::string_view src) {
    const uint32_t f = entry & 0xFF;
    if (!strip) {
      if (lower && (f & uc::kMap)) {
        const uint16_t off = uc::record(entry).lower;
        if (off) src = uc::pool_string(off);
      }
      out.append(src);
      return;
    }
    if (!(f & uc::kNonStarter)) run.clear();
    if (f & uc::kHangul) {
      const uint32_t s = cp - 0xAC00;
      append_utf8_3(out, 0x1100 + s / 588);
      append_utf8_3(out, 0x1161 + (s % 588) / 28);
      if (s % 28) append_utf8_3(out, 0x11A7 + s % 28);
      return;
    }
    if (f & uc::kMap) {
      const uc::MapRecord& r = uc::record(entry);
      const uint16_t off = lower ? r.lower_strip : r.strip;
      if (off) src = uc::pool_string(off);
    }
    const size_t start = out.size();
    out.append(src);
    if (f & uc::kCcc) run.place(out, start);
  };

  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      // ASCII: no marks, nothing Chinese; a starter ends any run of marks.
      bool emitted = false;
      while (i < n && p[i] < 0x80) {
        const int16_t v = ascii_[p[i++]];
        if (v >= 0) {
          out.push_back(static_cast<char>(v));
          emitted = true;
        }
      }
      if (emitted) run.clear();
      continue;
    }
    size_t len;
    const uint32_t cp = uc::decode_utf8(p + i, n - i, len);
    // Invalid bytes (the API asks for valid UTF-8) are read as U+FFFD, never copied through.
    const std::string_view src = len == 1 ? std::string_view("\xEF\xBF\xBD") : utf8.substr(i, len);
    i += len;
    const uint32_t entry = uc::lookup(cp);
    const uint32_t f = entry & 0xFF;
    if (clean) {
      if (f & uc::kDelete) continue;  // deleted before NFD: invisible to canonical ordering
      if (f & uc::kSpace) {
        out.push_back(' ');
        run.clear();
        continue;
      }
    }
    if (chinese && (f & uc::kChinese)) {
      out.push_back(' ');
      emit(cp, entry, src);  // compatibility ideographs have NFD singletons
      out.push_back(' ');
      run.clear();
      continue;
    }
    emit(cp, entry, src);
  }
}

}  // namespace bertpt::tokenizer

namespace bertpt::tokenizer {

std::shared_ptr<const BertNormalizer> BertNormalizer::from_json(const JsonFields& f) {
  NormalizerOptions o;
  o.clean_text = f.boolean_or("clean_text", true);
  o.handle_chinese_chars = f.boolean_or("handle_chinese_chars", true);
  o.lowercase = f.boolean_or("lowercase", true);
  if (const std::optional<JsonValue> strip = f.optional("strip_accents")) o.strip_accents = strip->boolean();
  return std::make_shared<const BertNormalizer>(o);
}

bool BertNormalizer::keeps_origin(std::string_view utf8) const {
  if (!options_.clean_text || utf8.empty()) return true;
  size_t len;
  const uint32_t cp = unicode::decode_utf8(reinterpret_cast<const unsigned char*>(utf8.data()), utf8.size(), len);
  return !(unicode::lookup(cp) & unicode::kDelete);
}

nlohmann::ordered_json BertNormalizer::to_json() const {
  nlohmann::ordered_json n;
  n["type"] = "BertNormalizer";
  n["clean_text"] = options_.clean_text;
  n["handle_chinese_chars"] = options_.handle_chinese_chars;
  n["strip_accents"] = options_.strip_accents ? nlohmann::ordered_json(*options_.strip_accents) : nullptr;
  n["lowercase"] = options_.lowercase;
  return n;
}

}  // namespace bertpt::tokenizer
