// MediaWiki XML dumps through the corpus reader: detection, namespaces, redirects, counts, entities
// and encodings (expat), compressed dumps, and the errors for truncated, malformed and non-dump XML.
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/test_util.h"
#include "text/corpus_reader.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

std::string page(const std::string& title, int ns, const std::string& text, bool redirect = false) {
  return "  <page>\n    <title>" + title + "</title>\n    <ns>" + std::to_string(ns) + "</ns>\n    <id>7</id>\n" +
         (redirect ? "    <redirect title=\"Elsewhere\" />\n" : "") +
         "    <revision>\n      <id>99</id>\n      <text xml:space=\"preserve\">" + text +
         "</text>\n    </revision>\n  </page>\n";
}

std::string dump(const std::string& pages, const std::string& decl = "") {
  return decl +
         "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\" version=\"0.10\">\n"
         "  <siteinfo><sitename>Wikipedia</sitename></siteinfo>\n" +
         pages + "</mediawiki>\n";
}

std::vector<std::string> read_all(CorpusOptions o, SourceStats* total = nullptr) {
  CorpusReader r(std::move(o));
  std::vector<std::string> docs;
  Document d;
  while (r.next(d)) docs.emplace_back(d.text);
  if (total) *total = r.total();
  return docs;
}

CorpusOptions opts(const std::string& path) {
  CorpusOptions o;
  o.inputs = {path};
  return o;
}

TEST(MediaWikiDump, ArticlesOnlyRedirectsSkippedAllCounted) {
  TempDir d;
  write_file(d.file("dump.xml"),
             dump(page("Cat", 0, "The '''cat''' is a [[mammal]].&lt;ref&gt;x&lt;/ref&gt;") +
                  page("Category:Cats", 14, "Cats in general.") + page("Kitty", 0, "#REDIRECT [[Cat]]", true) +
                  page("Dog", 0, "The dog &amp;amp; the [[wolf|wolves]].")));
  SourceStats total;
  EXPECT_EQ(read_all(opts(d.file("dump.xml")), &total),
            (std::vector<std::string>{"The cat is a mammal.", "The dog & the wolves."}));
  EXPECT_EQ(total.pages, 4u);
  EXPECT_EQ(total.pages_redirect, 1u);
  EXPECT_EQ(total.pages_other_namespace, 1u);
  CorpusOptions o = opts(d.file("dump.xml"));
  o.namespaces = {0, 14};
  EXPECT_EQ(read_all(o).size(), 3u);
}

TEST(MediaWikiDump, EncodingFromTheDeclarationAndCompressedDumps) {
  TempDir d;
  // ISO-8859-1: 0xE9 is é; expat hands out UTF-8.
  write_file(d.file("latin1.xml"),
             dump(page("Caf\xE9", 0, "Un caf\xE9."), "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"));
  EXPECT_EQ(read_all(opts(d.file("latin1.xml"))), (std::vector<std::string>{"Un caf\u00e9."}));
  const std::string xml = dump(page("A", 0, "Alpha text.") + page("B", 0, "Beta text."));
  write_file(d.file("dump.xml.bz2"), compress(xml, "bzip2"));
  EXPECT_EQ(read_all(opts(d.file("dump.xml.bz2"))), (std::vector<std::string>{"Alpha text.", "Beta text."}));
}

TEST(MediaWikiDump, TruncatedMalformedAndNonDumpXmlNameTheFileAndOffset) {
  TempDir d;
  const std::string xml = dump(page("A", 0, "Alpha text.") + page("B", 0, "Beta text that goes on."));
  write_file(d.file("cut.xml"), xml.substr(0, xml.size() - 60));
  try {
    read_all(opts(d.file("cut.xml")));
    FAIL() << "a truncated dump was read";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find(d.file("cut.xml") + ":"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the XML ends early"), std::string::npos) << e.what();
  }
  write_file(d.file("bad.xml"), dump(page("A", 0, "x < y")));
  try {
    read_all(opts(d.file("bad.xml")));
    FAIL() << "malformed XML was read";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find(d.file("bad.xml") + ":"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(byte "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("malformed XML"), std::string::npos) << e.what();
  }
  write_file(d.file("other.xml"), "<?xml version=\"1.0\"?>\n<mediawikiish/>");
  CorpusOptions o = opts(d.file("other.xml"));
  o.format = Format::MediaWiki;
  try {
    read_all(o);
    FAIL() << "a non-dump XML file was read";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("not a MediaWiki XML dump"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bertpt::text
