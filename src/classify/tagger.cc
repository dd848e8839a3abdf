#include "classify/tagger.h"

#include <ATen/ATen.h>

namespace bertpt::classify {

EncodedSentences encode_sentences(const tokenizer::Tokenizer& tok, const std::vector<TaggedSentence>& sentences,
                                  size_t max_len) {
  EncodedSentences out;
  out.words.reserve(sentences.size());
  out.examples.reserve(sentences.size());
  for (const TaggedSentence& s : sentences) {
    out.words.push_back(encode_words(tok, s.words, max_len));
    out.examples.push_back({out.words.back().ids, {}, out.words.back().truncated});
    out.truncated += out.words.back().truncated ? 1 : 0;
  }
  return out;
}

std::vector<SentenceTags> tag_sentences(model::Classifier& model, const EncodedSentences& sentences,
                                        const std::vector<size_t>& indices, const ClassifyOptions& options) {
  std::vector<SentenceTags> tags(indices.size());
  classify_each(model, sentences.examples, indices, options, [&](size_t i, const at::Tensor& logits) {
    const at::Tensor probs = at::softmax(logits, 1).contiguous();  // [t, labels]
    const auto [best_t, tag_t] = probs.max(1);
    const at::Tensor best = best_t.contiguous(), tag = tag_t.contiguous();
    const float* p = best.data_ptr<float>();
    const int64_t* t = tag.data_ptr<int64_t>();
    const EncodedWords& e = sentences.words[indices[i]];
    SentenceTags& out = tags[i];
    out.tag.assign(e.first_token.size(), -1);
    out.score.assign(e.first_token.size(), 0.0f);
    for (size_t w = 0; w < e.first_token.size(); ++w) {
      if (e.first_token[w] < 0) continue;
      out.tag[w] = int32_t(t[e.first_token[w]]);
      out.score[w] = p[e.first_token[w]];
    }
  });
  return tags;
}

}  // namespace bertpt::classify
