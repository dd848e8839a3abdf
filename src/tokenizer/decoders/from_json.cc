// The decoders bertpt reads from tokenizer.json, by "type". A new decoder is a file of this folder
// and a line of kReaders.
#include "tokenizer/component_reader.h"
#include "tokenizer/decoders/byte_fallback.h"
#include "tokenizer/decoders/byte_level.h"
#include "tokenizer/decoders/decoder.h"
#include "tokenizer/decoders/fuse.h"
#include "tokenizer/decoders/metaspace.h"
#include "tokenizer/decoders/replace.h"
#include "tokenizer/decoders/sequence.h"
#include "tokenizer/decoders/strip.h"
#include "tokenizer/decoders/wordpiece.h"

namespace bertpt::tokenizer {
namespace {

template <class T>
DecoderPtr read(const JsonFields& f) {
  return T::from_json(f);
}

const ComponentReader<DecoderPtr> kReaders[] = {
    {"WordPiece", read<WordPieceDecoder>}, {"Metaspace", read<MetaspaceDecoder>},
    {"Replace", read<ReplaceDecoder>},     {"ByteFallback", read<ByteFallbackDecoder>},
    {"Fuse", read<FuseDecoder>},           {"Strip", read<StripDecoder>},
    {"Sequence", read<DecoderSequence>},   {"ByteLevel", read<ByteLevelDecoder>},
};

}  // namespace

DecoderPtr read_decoder(const JsonValue& value) { return read_component(value, kReaders, "a decoder"); }

std::string decode_tokens(const Decoder* decoder, std::vector<std::string> tokens) {
  std::string out;
  if (decoder) {
    decoder->decode_chain(tokens);
    for (const std::string& t : tokens) out += t;
    return out;
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i) out += ' ';
    out += tokens[i];
  }
  return out;
}

}  // namespace bertpt::tokenizer
