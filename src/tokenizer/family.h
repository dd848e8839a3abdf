// The three tokenizer families bertpt trains, each as the encoders users adapt ship it:
//   wordpiece  BERT: BertNormalizer, BertPreTokenizer, WordPiece ("##"), [CLS] A [SEP], WordPiece decoder;
//   bpe        RoBERTa / ModernBERT: no normalizer, ByteLevel (GPT-2's split, no prefix space),
//              byte-level BPE, <s> A </s> (RobertaProcessing; [CLS] A [SEP] with BERT's specials),
//              ByteLevel decoder;
//   unigram    XLM-R / sentencepiece: Nmt + NFKC + runs of spaces folded, Metaspace ("▁", always),
//              Unigram, <s> A </s> (</s></s> between a pair, as XLM-R), Metaspace decoder.
// The pipeline is written as the tokenizer.json objects Hugging Face writes and read back through
// the components' own readers, so what is trained is what a saved file would load.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"
#include "tokenizer/trainer.h"
#include "tokenizer/unigram_trainer.h"

namespace bertpt::tokenizer {

enum class TokenizerFamily { WordPiece, Bpe, Unigram };

// "wordpiece", "bpe", "unigram"; parse_family throws BadInput naming the choices.
std::string family_name(TokenizerFamily family);
TokenizerFamily parse_family(const std::string& name);

// Special tokens in id order when none are given: BERT's five, or RoBERTa's <s> <pad> </s> <unk> <mask>.
std::vector<std::string> default_special_tokens(TokenizerFamily family);

// The roles of `specials` by their names (roles_by_name in tokenizer.h); a role whose token is not in
// `specials` stays "".
BertSpecialTokens roles_of(const std::vector<std::string>& specials);

// The family's normalizer and pre-tokenizer (JSON null: none), which also count the training words.
nlohmann::ordered_json family_normalizer(TokenizerFamily family);
nlohmann::ordered_json family_pre_tokenizer(TokenizerFamily family);

// The tokenizer of a trained vocabulary. `specials` must hold the cls and sep roles (roles_of);
// `source` names the result in errors.
Tokenizer bpe_tokenizer(const TrainedVocabulary& vocab, const std::vector<std::string>& specials,
                        const std::string& source);
Tokenizer unigram_tokenizer(const TrainedUnigram& model, const std::vector<std::string>& specials,
                            const std::string& source);

}  // namespace bertpt::tokenizer
