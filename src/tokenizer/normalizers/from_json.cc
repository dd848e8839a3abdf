// The normalizers bertpt reads from tokenizer.json, by "type". A new normalizer is a file of this
// folder and a line of kReaders.
#include "tokenizer/component_reader.h"
#include "tokenizer/normalizers/bert.h"
#include "tokenizer/normalizers/byte_level.h"
#include "tokenizer/normalizers/lowercase.h"
#include "tokenizer/normalizers/nmt.h"
#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/normalizers/precompiled.h"
#include "tokenizer/normalizers/prepend.h"
#include "tokenizer/normalizers/replace.h"
#include "tokenizer/normalizers/sequence.h"
#include "tokenizer/normalizers/strip.h"
#include "tokenizer/normalizers/strip_accents.h"
#include "tokenizer/normalizers/unicode.h"

namespace bertpt::tokenizer {
namespace {

template <class T>
NormalizerPtr read(const JsonFields& f) {
  return T::from_json(f);
}

const ComponentReader<NormalizerPtr> kReaders[] = {
    {"BertNormalizer", read<BertNormalizer>},
    {"Strip", read<StripNormalizer>},
    {"StripAccents", read<StripAccentsNormalizer>},
    {"NFC", read<UnicodeNormalizer>},
    {"NFD", read<UnicodeNormalizer>},
    {"NFKC", read<UnicodeNormalizer>},
    {"NFKD", read<UnicodeNormalizer>},
    {"Sequence", read<NormalizerSequence>},
    {"Lowercase", read<LowercaseNormalizer>},
    {"Nmt", read<NmtNormalizer>},
    {"Precompiled", read<PrecompiledNormalizer>},
    {"Replace", read<ReplaceNormalizer>},
    {"Prepend", read<PrependNormalizer>},
    {"ByteLevel", read<ByteLevelNormalizer>},
};

}  // namespace

NormalizerPtr read_normalizer(const JsonValue& value) { return read_component(value, kReaders, "a normalizer"); }

}  // namespace bertpt::tokenizer
