// The pre-tokenizers bertpt reads from tokenizer.json, by "type". A new pre-tokenizer is a file of
// this folder and a line of kReaders.
#include "tokenizer/component_reader.h"
#include "tokenizer/pre_tokenizers/bert.h"
#include "tokenizer/pre_tokenizers/byte_level.h"
#include "tokenizer/pre_tokenizers/digits.h"
#include "tokenizer/pre_tokenizers/metaspace.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/punctuation.h"
#include "tokenizer/pre_tokenizers/sequence.h"
#include "tokenizer/pre_tokenizers/split.h"
#include "tokenizer/pre_tokenizers/whitespace.h"

namespace bertpt::tokenizer {
namespace {

template <class T>
PreTokenizerPtr read(const JsonFields& f) {
  return T::from_json(f);
}

const ComponentReader<PreTokenizerPtr> kReaders[] = {
    {"BertPreTokenizer", read<BertPreTokenizer>},
    {"Sequence", read<PreTokenizerSequence>},
    {"Metaspace", read<MetaspacePreTokenizer>},
    {"ByteLevel", read<ByteLevel>},
    {"Split", read<Split>},
    {"Whitespace", read<Whitespace>},
    {"WhitespaceSplit", read<WhitespaceSplit>},
    {"Punctuation", read<Punctuation>},
    {"Digits", read<Digits>},
};

}  // namespace

PreTokenizerPtr read_pre_tokenizer(const JsonValue& value) {
  return read_component(value, kReaders, "a pre-tokenizer");
}

}  // namespace bertpt::tokenizer
