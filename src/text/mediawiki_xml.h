// Pages out of a MediaWiki XML export (a Wikipedia `*-pages-articles*.xml` dump, plain or compressed):
// <mediawiki><siteinfo>…</siteinfo><page><title/><ns/><id/><redirect title=…/><revision>…<text>WIKITEXT
// </text></revision></page>…</mediawiki>. Parsed by expat as a stream, so memory holds one page at a
// time whatever the dump's size; expat decodes every encoding the XML declaration allows and the XML
// entities (&amp; &lt; &#160; …). The page text stays wikitext (text/wikitext.h turns it into prose).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "text/line_reader.h"

namespace bertpt::text {

struct WikiPage {
  std::string title;
  int64_t ns = 0;         // 0: articles; 14: Category; 4: Wikipedia; ...
  bool redirect = false;  // a <redirect/> element, or wikitext starting with #REDIRECT
  uint64_t id = 0;
  uint64_t line = 0;  // line of the <page> tag in the (decompressed) file
  std::string text;   // the latest revision's wikitext
};

class MediaWikiReader {
 public:
  // Reads the bytes of `source` (the file `path`, for messages) from where they stand.
  MediaWikiReader(LineReader& source, std::string path);
  ~MediaWikiReader();
  MediaWikiReader(const MediaWikiReader&) = delete;
  MediaWikiReader& operator=(const MediaWikiReader&) = delete;

  // The next page in file order; false after the last. Throws BadInput naming the file, line and
  // byte offset on malformed XML, a root element other than <mediawiki> (not a dump), or a file that
  // ends inside an element (truncated).
  bool next(WikiPage& page);

  struct State;  // the expat callbacks' view (mediawiki_xml.cc)

 private:
  LineReader& source_;
  std::string path_;
  std::unique_ptr<State> state_;
  bool done_ = false;
};

}  // namespace bertpt::text
