#include "text/mediawiki_xml.h"

#include <expat.h>

#include <cstring>
#include <vector>

#include "common/error.h"

namespace bertpt::text {

namespace {

// The element whose character data is being collected.
enum class Field { None, Title, Ns, Id, Text };

}  // namespace

struct MediaWikiReader::State {
  XML_Parser parser = nullptr;
  std::vector<char> chunk = std::vector<char>(1 << 16);  // the bytes handed to expat at a time
  std::deque<WikiPage> ready;                            // pages completed by the last chunk
  WikiPage page;
  Field field = Field::None;
  int depth = 0;
  bool in_page = false, in_revision = false, page_id_seen = false;
  std::string number;  // <ns> and <id> text
  std::string stop;    // why a callback stopped the parser (not a dump)

  ~State() {
    if (parser) XML_ParserFree(parser);
  }

  static void on_start(void* data, const XML_Char* name, const XML_Char** attrs) {
    auto& s = *static_cast<State*>(data);
    ++s.depth;
    if (s.depth == 1) {
      if (std::strcmp(name, "mediawiki") != 0) {
        s.stop = std::string("the root element is <") + name + ">, not <mediawiki>: not a MediaWiki XML dump";
        XML_StopParser(s.parser, XML_FALSE);
      }
      return;
    }
    if (std::strcmp(name, "page") == 0) {
      s.page = WikiPage{};
      s.page.line = XML_GetCurrentLineNumber(s.parser);
      s.in_page = true;
      s.page_id_seen = false;
    } else if (!s.in_page) {
      return;
    } else if (std::strcmp(name, "revision") == 0) {
      s.in_revision = true;
    } else if (std::strcmp(name, "title") == 0 && !s.in_revision) {
      s.field = Field::Title;
    } else if (std::strcmp(name, "ns") == 0) {
      s.field = Field::Ns, s.number.clear();
    } else if (std::strcmp(name, "id") == 0 && !s.in_revision && !s.page_id_seen) {
      s.field = Field::Id, s.number.clear();
    } else if (std::strcmp(name, "redirect") == 0) {
      s.page.redirect = true;
    } else if (std::strcmp(name, "text") == 0 && s.in_revision) {
      s.field = Field::Text;
      s.page.text.clear();  // a dump with several revisions keeps the last
    }
    (void)attrs;
  }

  static void on_end(void* data, const XML_Char* name) {
    auto& s = *static_cast<State*>(data);
    --s.depth;
    if (!s.in_page) return;
    if (s.field == Field::Ns) s.page.ns = std::strtoll(s.number.c_str(), nullptr, 10);
    if (s.field == Field::Id) s.page.id = std::strtoull(s.number.c_str(), nullptr, 10), s.page_id_seen = true;
    s.field = Field::None;
    if (std::strcmp(name, "revision") == 0) s.in_revision = false;
    if (std::strcmp(name, "page") == 0) {
      s.in_page = false;
      s.ready.push_back(std::move(s.page));
    }
  }

  static void on_text(void* data, const XML_Char* text, int len) {
    auto& s = *static_cast<State*>(data);
    switch (s.field) {
      case Field::Title: s.page.title.append(text, size_t(len)); break;
      case Field::Text: s.page.text.append(text, size_t(len)); break;
      case Field::Ns:
      case Field::Id: s.number.append(text, size_t(len)); break;
      case Field::None: break;
    }
  }
};

MediaWikiReader::MediaWikiReader(LineReader& source, std::string path)
    : source_(source), path_(std::move(path)), state_(std::make_unique<State>()) {
  // Bytes read as they are: expat follows the XML declaration (UTF-8, UTF-16, ISO-8859-1, US-ASCII).
  // Bytes already decoded to UTF-8 (text/encoding.h) are UTF-8 whatever the declaration still says.
  // Either way expat hands out UTF-8.
  const bool decoded = !source.source().decoded_from().empty();
  state_->parser = XML_ParserCreate(decoded ? "UTF-8" : nullptr);
  if (!state_->parser) throw Error(Error::Kind::Internal, "cannot create an XML parser (out of memory?)");
  XML_SetUserData(state_->parser, state_.get());
  XML_SetElementHandler(state_->parser, &State::on_start, &State::on_end);
  XML_SetCharacterDataHandler(state_->parser, &State::on_text);
}

MediaWikiReader::~MediaWikiReader() = default;

bool MediaWikiReader::next(WikiPage& page) {
  State& s = *state_;
  std::vector<char>& chunk = s.chunk;
  while (s.ready.empty() && !done_) {
    const size_t n = source_.read_raw(chunk.data(), chunk.size());
    done_ = n == 0;
    if (XML_Parse(s.parser, chunk.data(), int(n), done_ ? XML_TRUE : XML_FALSE) == XML_STATUS_OK) continue;
    const XML_Error code = XML_GetErrorCode(s.parser);
    const std::string where = path_ + ":" + std::to_string(XML_GetCurrentLineNumber(s.parser)) + " (byte " +
                              std::to_string(XML_GetCurrentByteIndex(s.parser)) + ")";
    if (code == XML_ERROR_ABORTED)
      throw BadInput(where + ": " + s.stop, "give a pages-articles dump, or --format text");
    const bool truncated = done_ && (code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN ||
                                     code == XML_ERROR_PARTIAL_CHAR);
    throw BadInput(where + ": " + (truncated ? "the XML ends early (a truncated dump?)" : "malformed XML") + ": " +
                       XML_ErrorString(code),
                   truncated ? "download the dump again (its .md5/.sha1 files check it)" : "is this a MediaWiki dump?");
  }
  if (s.ready.empty()) return false;
  page = std::move(s.ready.front());
  s.ready.pop_front();
  return true;
}

}  // namespace bertpt::text
