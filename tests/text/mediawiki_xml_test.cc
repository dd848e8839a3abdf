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

// Pages are converted on --read-threads workers (text/wiki_pages.h): the documents, their order and
// every count are those of one thread, over many batches of pages; a dump cut short still gives the
// pages before the cut, then the error.
TEST(MediaWikiDump, ThreadCountChangesNothingAndPagesBeforeDamageArrive) {
  TempDir d;
  std::string pages;
  for (int i = 0; i < 700; ++i) {
    const std::string n = std::to_string(i);
    pages += page("P" + n, i % 7 == 3 ? 4 : 0, i % 11 == 5 ? "#REDIRECT [[P1]]" : "Page '''" + n + "''' [[x|y]] z.");
  }
  write_file(d.file("big.xml.gz"), compress(dump(pages), "gzip"));
  SourceStats one, many;
  CorpusOptions o = opts(d.file("big.xml.gz"));
  o.read_threads = 1;
  const auto a = read_all(o, &one);
  o.read_threads = 3;
  const auto b = read_all(o, &many);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 700u - 100u - 64u + 9u);  // 100 in namespace 4, 64 redirects, 9 of them both
  EXPECT_EQ(a[1], "Page 1 y z.");
  EXPECT_EQ(one.pages, 700u);
  EXPECT_EQ(many.pages, one.pages);
  EXPECT_EQ(many.pages_redirect, one.pages_redirect);
  EXPECT_EQ(many.pages_other_namespace, one.pages_other_namespace);
  EXPECT_EQ(many.bytes, one.bytes);

  const std::string xml = dump(pages);
  write_file(d.file("cut.xml"), xml.substr(0, xml.size() * 2 / 3));
  o = opts(d.file("cut.xml"));
  o.read_threads = 3;
  o.skip_bad_files = true;
  const auto kept = read_all(o);
  EXPECT_GT(kept.size(), 300u);
  EXPECT_EQ(std::vector<std::string>(a.begin(), a.begin() + long(kept.size())), kept);
}

}  // namespace
}  // namespace bertpt::text
