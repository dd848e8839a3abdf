// The Unigram model of Hugging Face tokenizers (sentencepiece's unigram language model): a vocabulary
// of (piece, score) with ids = positions, and the best-scoring segmentation of a word (Viterbi over
// its byte positions, one character at a time), with HF's rules:
//   * at each character boundary, in order, every vocabulary piece that starts there is tried, shortest
//     first; a path replaces the best one ending at the same position only when its score is strictly
//     greater, so among equal scores the first one found (the one starting earliest) stays;
//   * a character that no one-character piece covers gets the unknown piece, scored min_score - 10;
//   * consecutive pieces with the unknown id are fused into one token (HF's fuse_unk, always on);
//     a fused token that is itself in the vocabulary takes that id; with byte_fallback it becomes its
//     "<0xNN>" pieces when all of them exist; else it is the unknown id.
// Prefix lookups walk a byte trie stored as a double array (one cell read per byte, holding the piece's
// id and score), so encoding a word builds no strings and allocates only its thread's scratch buffers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/models/model.h"

namespace bertpt::tokenizer {

// Where a Unigram vocabulary comes from, for errors: `FILE: field "model.vocab[12][1]" ...`.
struct UnigramSource {
  std::string file = "Unigram";
  std::string vocab_field = "vocab";
  std::string unk_id_field = "unk_id";
};

class Unigram final : public Model {
 public:
  // `pieces[i]` gets id i. Throws BadInput naming the file and field on a score that is not finite, a
  // duplicate piece, or an unk_id past the vocabulary.
  Unigram(std::vector<std::pair<std::string, double>> pieces, std::optional<uint32_t> unk_id, bool byte_fallback,
          const UnigramSource& source = {});
  // The tokenizer.json "model" object `f` (type Unigram): "vocab" [[piece, score], ...], "unk_id"
  // (an id or null), "byte_fallback" (default false).
  static std::shared_ptr<const Unigram> from_json(const JsonFields& f);

  // Appends the ids of `word` (valid UTF-8, not empty). Throws BadInput when a character no piece
  // covers would enter the best path and the model has no unk_id (HF fails the encoding then too).
  void encode_word(std::string_view word, std::vector<uint32_t>& ids) const override;
  // The token strings HF's Unigram::encode gives `word` (before ids and byte fallback), for tests.
  std::vector<std::string> encode_pieces(std::string_view word) const;

  std::optional<uint32_t> token_to_id(std::string_view token) const override;
  std::string_view id_to_token(uint32_t id) const override;
  bool has_id(uint32_t id) const override { return id < scores_.size(); }
  size_t size() const override { return scores_.size(); }
  size_t id_limit() const override { return scores_.size(); }
  std::optional<uint32_t> unk_id() const override { return unk_id_; }
  std::string unk_token() const override { return unk_id_ ? std::string(id_to_token(*unk_id_)) : std::string(); }
  std::string_view type() const override { return "Unigram"; }
  nlohmann::ordered_json to_json() const override;

  double score(uint32_t id) const { return scores_[id]; }
  double min_score() const { return min_score_; }
  bool byte_fallback() const { return byte_fallback_; }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  // One segment of the best path: word bytes [begin, end) and the piece id (kNone never occurs).
  struct Segment {
    uint32_t begin, end, id;
  };

  void build_trie(const UnigramSource& source);
  // Lays the trie (breadth-first, children sorted by byte) out as cells_.
  void build_double_array(const std::vector<uint32_t>& first_child, const std::vector<uint16_t>& child_count,
                          const std::vector<unsigned char>& label, const std::vector<uint32_t>& token);
  // The position reached from `node` by byte `label`, or kNone.
  uint32_t child(uint32_t node, unsigned char label) const {
    const uint32_t at = cells_[node].base + label;
    return at < cells_.size() && cells_[at].check == node ? at : kNone;
  }
  // The best path over `word`, in order, one segment per piece (unknown characters unfused).
  void best_path(std::string_view word, std::vector<Segment>& path) const;
  // Appends the ids of one fused run of unknown pieces (word bytes [begin, end)).
  void append_unknown_run(std::string_view text, std::vector<uint32_t>& ids) const;

  std::string arena_;                                 // every piece, concatenated
  std::vector<std::pair<uint32_t, uint32_t>> spans_;  // id -> (offset, length) in arena_
  std::vector<double> scores_;
  std::optional<uint32_t> unk_id_;
  bool byte_fallback_ = false;
  double min_score_ = 0;
  double unk_score_ = 0;                  // min_score_ - 10 (HF's K_UNK_PENALTY)
  std::array<uint32_t, 256> byte_ids_{};  // "<0xNN>" -> id, or kNone

  // The trie of the pieces as a double array (base + label, checked by parent): the node at position
  // p has its child for byte c at cells_[p].base + c, which belongs to it when its check is p. A cell
  // also holds the id and score of the piece that ends there, so a walk reads one cell per byte.
  struct Cell {
    uint32_t base = 0;
    uint32_t check = kNone;  // the parent's position; kNone: a free cell
    uint32_t token = kNone;  // the piece ending here, or kNone
    double score = 0;        // its score
  };
  std::vector<Cell> cells_;  // cells_[0] is the root
};

}  // namespace bertpt::tokenizer
