#include "tokenizer/normalizers/precompiled.h"

#include <utf8proc.h>

#include <array>
#include <cstring>

#include "common/error.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

// The fields of a darts-clone double-array unit, as spm_precompiled reads them.
inline bool has_leaf(uint32_t unit) { return (unit >> 8) & 1; }
inline uint32_t unit_value(uint32_t unit) { return unit & 0x7FFFFFFFu; }
inline uint32_t unit_label(uint32_t unit) { return unit & (0x80000000u | 0xFFu); }
inline uint64_t unit_offset(uint32_t unit) { return uint64_t(unit >> 10) << ((unit & (1u << 9)) >> 6); }

constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

const std::array<int8_t, 256> kBase64Value = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (size_t i = 0; i < kBase64.size(); ++i) t[static_cast<unsigned char>(kBase64[i])] = int8_t(i);
  return t;
}();

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    uint32_t group = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int v = k < 4 - pad ? kBase64Value[static_cast<unsigned char>(text[i + k])] : 0;
      if (v < 0) return std::nullopt;
      group = (group << 6) | uint32_t(v);
    }
    // Canonical: the bits a padded group does not use must be zero.
    if ((pad == 1 && (group & 0xFF)) || (pad == 2 && (group & 0xFFFF))) return std::nullopt;
    out.push_back(char(group >> 16));
    if (pad < 2) out.push_back(char((group >> 8) & 0xFF));
    if (pad < 1) out.push_back(char(group & 0xFF));
  }
  return out;
}

std::string encode_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = 0;
    for (size_t k = 0; k < 3; ++k) {
      group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (size_t k = 0; k < 4; ++k) out.push_back(k <= n ? kBase64[(group >> (18 - 6 * k)) & 0x3F] : '=');
  }
  return out;
}

PrecompiledNormalizer::PrecompiledNormalizer(std::string charsmap, const std::string& what)
    : charsmap_(std::move(charsmap)) {
  if (charsmap_.size() < 4) throw BadInput(what + " is " + std::to_string(charsmap_.size()) + " bytes, too short");
  uint32_t trie_bytes;
  std::memcpy(&trie_bytes, charsmap_.data(), 4);  // little-endian, as x86 and ARM store it
  const size_t units = trie_bytes / 4;            // spm_precompiled reads whole units only
  if (units > (charsmap_.size() - 4) / 4) {
    throw BadInput(what + ": its trie of " + std::to_string(trie_bytes) + " bytes runs past the blob's end (" +
                   std::to_string(charsmap_.size()) + " bytes)");
  }
  trie_.resize(units);
  if (units > 0) std::memcpy(trie_.data(), charsmap_.data() + 4, units * 4);
  pool_ = std::string_view(charsmap_).substr(4 + units * 4);
  validate(what);
  for (int b = 0; b < 128; ++b) {
    const char c = char(b);
    ascii_[b] = transform(std::string_view(&c, 1));
  }
}

void PrecompiledNormalizer::validate(const std::string& what) const {
  for (size_t i = 0; i < pool_.size();) {
    size_t len;
    const uint32_t cp = unicode::decode_utf8(reinterpret_cast<const unsigned char*>(pool_.data()) + i, pool_.size() - i,
                                             len);
    if (cp == 0xFFFD && len == 1) throw BadInput(what + ": its replacement strings are not valid UTF-8");
    i += len;
  }
  if (trie_.empty()) throw BadInput(what + ": its trie is empty", "Hugging Face fails on the first text too");
  auto fail = [&](const std::string& problem) { throw BadInput(what + ": its trie " + problem); };
  // Every node the lookups can reach, and every unit they read from it, depth first.
  std::vector<bool> visited(trie_.size());
  std::vector<uint64_t> stack{unit_offset(trie_[0])};
  while (!stack.empty()) {
    const uint64_t node = stack.back();
    stack.pop_back();
    for (uint32_t c = 1; c < 256; ++c) {
      const uint64_t at = node ^ c;
      if (at >= trie_.size()) fail("leads past its end (unit " + std::to_string(at) + ")");
      const uint32_t unit = trie_[at];
      if (unit_label(unit) != c) continue;
      const uint64_t child = at ^ unit_offset(unit);
      if (has_leaf(unit)) {
        if (child >= trie_.size()) fail("leads past its end (unit " + std::to_string(child) + ")");
        const uint32_t offset = unit_value(trie_[child]);
        if (offset > pool_.size() || (offset < pool_.size() && (pool_[offset] & 0xC0) == 0x80)) {
          fail("points past its replacement strings or inside a character (offset " + std::to_string(offset) + ")");
        }
      }
      if (child < trie_.size()) {
        if (visited[child]) continue;
        visited[child] = true;
      }
      stack.push_back(child);
    }
  }
}

std::shared_ptr<const PrecompiledNormalizer> PrecompiledNormalizer::from_json(const JsonFields& f) {
  const JsonValue v = f.value("precompiled_charsmap");
  const std::string what = f.file() + ": field \"" + v.name() + "\"";
  std::optional<std::string> blob = decode_base64(v.str());
  if (!blob) v.fail("is not base64", "sentencepiece's precompiled_charsmap, base64-encoded (standard, padded)");
  return std::make_shared<const PrecompiledNormalizer>(std::move(*blob), what);
}

nlohmann::ordered_json PrecompiledNormalizer::to_json() const {
  return {{"type", "Precompiled"}, {"precompiled_charsmap", encode_base64(charsmap_)}};
}

std::optional<std::string_view> PrecompiledNormalizer::transform(std::string_view chunk) const {
  const size_t size = trie_.size();
  uint64_t node = unit_offset(trie_[0]);
  for (const char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    node ^= c;
    if (node >= size) return std::nullopt;  // unreachable: validate() checked every probe
    const uint32_t unit = trie_[node];
    if (unit_label(unit) != c) return std::nullopt;
    node ^= unit_offset(unit);
    if (has_leaf(unit)) {
      if (node >= size) return std::nullopt;
      const std::string_view rest = pool_.substr(std::min<size_t>(unit_value(trie_[node]), pool_.size()));
      return rest.substr(0, rest.find('\0'));
    }
  }
  return std::nullopt;
}

void PrecompiledNormalizer::normalize(std::string_view text, std::string& out) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  // Emits one grapheme cluster, text[begin, end).
  auto emit = [&](size_t begin, size_t end) {
    const std::string_view cluster = text.substr(begin, end - begin);
    if (cluster.size() == 1 && p[begin] < 0x80) {
      const std::optional<std::string_view>& r = ascii_[static_cast<unsigned char>(cluster[0])];
      out.append(r ? *r : cluster);
      return;
    }
    if (cluster.size() < 6) {
      if (const std::optional<std::string_view> r = transform(cluster)) {
        out.append(*r);
        return;
      }
    }
    for (size_t i = begin; i < end;) {
      size_t len;
      unicode::decode_utf8(p + i, end - i, len);
      const std::string_view ch = text.substr(i, len);
      const std::optional<std::string_view> r = transform(ch);
      out.append(r ? *r : ch);
      i += len;
    }
  };
  out.reserve(out.size() + text.size());
  int32_t state = 0;  // utf8proc's: the boundary class of the last character (0: none yet)
  int32_t previous = -1;
  size_t cluster_begin = 0;
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const auto cp = int32_t(unicode::decode_utf8(p + i, text.size() - i, len));
    if (previous >= 0) {
      bool boundary;
      if (previous < 0x80 && cp < 0x80) {
        // Between two ASCII characters the only rule that joins is GB3 (CR x LF). The state utf8proc
        // would keep is the class of `cp`, which state 0 makes it read again from the next pair.
        boundary = !(previous == '\r' && cp == '\n');
        state = 0;
      } else {
        boundary = utf8proc_grapheme_break_stateful(previous, cp, &state);
      }
      if (boundary) {
        emit(cluster_begin, i);
        cluster_begin = i;
      }
    }
    previous = cp;
    i += len;
  }
  if (cluster_begin < text.size()) emit(cluster_begin, text.size());
}

}  // namespace bertpt::tokenizer
