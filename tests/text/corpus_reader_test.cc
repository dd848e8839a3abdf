#include "text/corpus_reader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/test_util.h"
#include "common/warning.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

struct Read {
  std::vector<std::string> docs;
  std::vector<SourceStats> stats;
  SourceStats total;
};

Read read_corpus(CorpusOptions o) {
  CorpusReader r(std::move(o));
  Read out;
  Document d;
  while (r.next(d)) out.docs.emplace_back(d.text);
  out.stats = r.stats();
  out.total = r.total();
  return out;
}

CorpusOptions opts(std::vector<std::string> inputs) {
  CorpusOptions o;
  o.inputs = std::move(inputs);
  return o;
}

TEST(CorpusReader, PlainTextOneDocumentPerLine) {
  TempDir d;
  write_file(d.file("a.txt"), "first doc\n\n   \nsecond doc\r\nthird");
  auto r = read_corpus(opts({d.file("a.txt")}));
  EXPECT_EQ(r.docs, (std::vector<std::string>{"first doc", "second doc", "third"}));
  EXPECT_EQ(r.total.documents, 3u);
  EXPECT_EQ(r.total.empty_skipped, 2u);
  EXPECT_EQ(r.total.files, 1u);
  EXPECT_EQ(r.total.characters, 9u + 10u + 5u);
}

TEST(CorpusReader, ParagraphsAndWholeFiles) {
  TempDir d;
  write_file(d.file("p.txt"), "para one\nstill one\n\n\npara two\n");
  auto o = opts({d.file("p.txt")});
  o.doc_per = DocPer::Paragraph;
  EXPECT_EQ(read_corpus(o).docs, (std::vector<std::string>{"para one\nstill one", "para two"}));
  o.doc_per = DocPer::File;
  EXPECT_EQ(read_corpus(o).docs, (std::vector<std::string>{"para one\nstill one\n\n\npara two"}));
}

TEST(CorpusReader, JsonlRowsAsHuggingFaceExportsThem) {
  TempDir d;
  write_file(d.file("w.jsonl"),
             "{\"id\":\"1\",\"url\":\"u\",\"title\":\"A\",\"text\":\"Alpha text.\\nMore.\"}\n"
             "\n"
             "{\"id\":\"2\",\"title\":\"B\",\"text\":\"\"}\n"
             "{\"id\":\"3\",\"title\":\"C\",\"text\":\"Gamma\"}\n");
  auto r = read_corpus(opts({d.file("w.jsonl")}));
  EXPECT_EQ(r.docs, (std::vector<std::string>{"Alpha text.\nMore.", "Gamma"}));
  EXPECT_EQ(r.total.empty_skipped, 1u);
  auto o = opts({d.file("w.jsonl")});
  o.text_field = "title";
  EXPECT_EQ(read_corpus(o).docs, (std::vector<std::string>{"A", "B", "C"}));
}

TEST(CorpusReader, BadJsonlLineNamesFileAndLine) {
  TempDir d;
  write_file(d.file("bad.jsonl"), "{\"text\":\"ok\"}\n{\"text\": broken}\n{\"text\":\"ok2\"}\n{\"body\":\"x\"}\n");
  CorpusReader r(opts({d.file("bad.jsonl")}));
  Document doc;
  ASSERT_TRUE(r.next(doc));
  try {
    r.next(doc);
    FAIL() << "malformed line accepted";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find(d.file("bad.jsonl") + ":2:"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("--skip-bad-lines"), std::string::npos);
  }
  EXPECT_EQ(r.total().documents, 1u) << "documents read before the error stay counted";

  auto o = opts({d.file("bad.jsonl")});
  o.skip_bad_lines = true;
  auto skipped = read_corpus(o);
  EXPECT_EQ(skipped.docs, (std::vector<std::string>{"ok", "ok2"}));
  EXPECT_EQ(skipped.total.bad_lines_skipped, 2u);
}

TEST(CorpusReader, MissingTextFieldNamesTheField) {
  TempDir d;
  write_file(d.file("x.jsonl"), "{\"body\":\"x\"}\n");
  try {
    read_corpus(opts({d.file("x.jsonl")}));
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("\"text\""), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(":1:"), std::string::npos);
    EXPECT_NE(e.hint().find("--text-field"), std::string::npos);
  }
}

TEST(CorpusReader, WikiExtractorDocsWithoutTheirTitleLine) {
  TempDir d;
  write_file(d.file("wiki_00"),
             "<doc id=\"1\" url=\"?curid=1\" title=\"Anarchism\">\nAnarchism\n\nAnarchism is a philosophy.\n\n"
             "History.\nIt is old.\n</doc>\n"
             "<doc id=\"2\" url=\"?curid=2\" title=\"Redirect page\">\nRedirect page\n</doc>\n"
             "<doc id=\"3\" url=\"?curid=3\" title=\"Zed\">\nZed\nZed is a letter.\n</doc>\n");
  auto r = read_corpus(opts({d.file("wiki_00")}));
  EXPECT_EQ(r.docs,
            (std::vector<std::string>{"Anarchism is a philosophy.\n\nHistory.\nIt is old.", "Zed is a letter."}));
  EXPECT_EQ(r.total.empty_skipped, 1u);
}

TEST(CorpusReader, CompressedFilesDirectoriesAndGlobs) {
  TempDir d;
  std::filesystem::create_directories(d.file("corpus/sub"));
  std::filesystem::create_directories(d.file("corpus/.hidden"));
  write_file(d.file("corpus/b.txt.zst"), compress("from zstd\n", "zstd"));
  write_file(d.file("corpus/a.txt"), "from plain\n");
  write_file(d.file("corpus/sub/c.jsonl.gz"), compress("{\"text\":\"from gzip jsonl\"}\n", "gzip"));
  write_file(d.file("corpus/sub/d.xz"), compress("from xz\n", "xz"));
  write_file(d.file("corpus/sub/e.bz2"), compress("from bzip2\n", "bzip2"));
  write_file(d.file("corpus/.hidden/x.txt"), "never read\n");
  auto r = read_corpus(opts({d.file("corpus")}));
  // Sorted walk: a.txt, b.txt.zst, sub/c…, sub/d…, sub/e…
  EXPECT_EQ(r.docs, (std::vector<std::string>{"from plain", "from zstd", "from gzip jsonl", "from xz", "from bzip2"}));
  EXPECT_EQ(r.total.files, 5u);

  auto g = read_corpus(opts({d.file("corpus/sub/*")}));
  EXPECT_EQ(g.docs.size(), 3u);
}

TEST(CorpusReader, PerSourceStatsKeepSourcesApart) {
  TempDir d;
  write_file(d.file("one.txt"), "a\nb\n");
  write_file(d.file("two.txt"), "c\n");
  auto r = read_corpus(opts({d.file("one.txt"), d.file("two.txt")}));
  ASSERT_EQ(r.stats.size(), 2u);
  EXPECT_EQ(r.stats[0].documents, 2u);
  EXPECT_EQ(r.stats[1].documents, 1u);
  EXPECT_EQ(r.stats[0].bytes, 4u);
  EXPECT_EQ(r.stats[1].name, d.file("two.txt"));
}

TEST(CorpusReader, InvalidUtf8AndNulAreRepairedAndCounted) {
  TempDir d;
  write_file(d.file("bad.txt"), std::string("caf\xE9\nnul\0byte\n\xFF\xFE\n", 17));
  CorpusOptions o = opts({d.file("bad.txt")});
  o.repair_invalid_utf8 = true;  // 4 repairs in 17 bytes: refused without it (below)
  auto r = read_corpus(o);
  EXPECT_EQ(r.docs, (std::vector<std::string>{"caf\xEF\xBF\xBD", "nulbyte", "\xEF\xBF\xBD\xEF\xBF\xBD"}));
  EXPECT_EQ(r.total.invalid_utf8, 3u);
  EXPECT_EQ(r.total.nul_removed, 1u);
}

std::string error_of(CorpusOptions o) {
  try {
    read_corpus(std::move(o));
  } catch (const BadInput& e) {
    return e.what();
  }
  return "no error";
}

// A file whose repairs pass 1% of its bytes is refused, naming it and what was found; a few stray
// bytes in a large file are repaired as before.
TEST(CorpusReader, MostlyInvalidTextIsRefusedUnlessRepairIsAsked) {
  TempDir d;
  std::string latin1;
  for (int i = 0; i < 3000; ++i) latin1 += "Le caf\xE9 \xE0 c\xF4t\xE9.\n";
  write_file(d.file("latin1.txt"), latin1);
  EXPECT_EQ(error_of(opts({d.file("latin1.txt")})),
            d.file("latin1.txt") +
                ": 12000 repairs in its first 45000 bytes of text (0 NUL bytes, 12000 invalid "
                "sequences): this is not UTF-8 text");
  CorpusOptions named = opts({d.file("latin1.txt")});
  named.encodings = {"latin1"};
  auto r = read_corpus(named);
  EXPECT_EQ(r.docs.front(), "Le café à côté.");
  EXPECT_EQ(r.total.invalid_utf8, 0u);
  EXPECT_EQ(r.total.files_decoded, 1u);

  std::string utf16;  // ASCII in UTF-16LE without a byte-order mark: every other byte NUL
  for (char c : std::string(200000, 'x') + "\n") utf16 += std::string{c, '\0'};
  write_file(d.file("u16.txt"), utf16);
  EXPECT_EQ(error_of(opts({d.file("u16.txt")})),
            d.file("u16.txt") +
                ": 200000 repairs in its first 400000 bytes of text (200000 NUL bytes, 0 invalid "
                "sequences): this is not UTF-8 text");

  std::string mostly_fine(100000, 'a');
  mostly_fine += "\xFF\n";
  write_file(d.file("fine.txt"), mostly_fine);
  EXPECT_EQ(read_corpus(opts({d.file("fine.txt")})).total.invalid_utf8, 1u);
}

BadInput bad_input_of(CorpusOptions o) {
  try {
    read_corpus(std::move(o));
  } catch (const BadInput& e) {
    return e;
  }
  return BadInput("no error");
}

// 100 KB of machine code and tables: NUL bytes everywhere, not UTF-16/32 text, after `header`.
std::string binary_file(const std::string& header) {
  std::string bytes = header;
  uint32_t x = 7;
  while (bytes.size() < 100000) {
    x = x * 1103515245 + 12345;
    bytes.push_back((x >> 16) % 3 == 0 ? '\0' : char(x >> 20));
  }
  return bytes;
}

// A binary file is refused as one, naming it, where and what was found — not sent to --encoding
// UTF-16LE and back; with --encoding given, the message speaks of that encoding, not of UTF-8.
TEST(CorpusReader, BinaryFileIsRefusedAsBinaryWhateverTheEncoding) {
  TempDir d;
  write_file(d.file("ls"), binary_file("\x7f"
                                       "ELF\x02\x01\x01"));
  for (const std::string encoding : {"", "UTF-16LE", "latin1", "utf-8"}) {
    CorpusOptions o = opts({d.file("ls")});
    if (!encoding.empty()) o.encodings = {encoding};
    const std::string named = encoding.empty() || encoding == "utf-8" ? "UTF-8" : encoding;
    const BadInput e = bad_input_of(o);
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with(d.file("ls") + ": this looks like a binary file, not " + named +
                                 " text: an ELF executable header (7f 45 4c 46) at byte 0; "))
        << what;
    if (named != "UTF-8") {
      EXPECT_EQ(what.find("UTF-8"), std::string::npos) << what;
    }
    EXPECT_EQ(e.hint().find("--encoding"), std::string::npos) << e.hint();
    EXPECT_NE(e.hint().find("text files only"), std::string::npos) << e.hint();
  }

  // No known header: the first NUL byte, and where; compressed: in the decompressed data.
  const std::string junk = binary_file("a line of text\n\x01\x02");
  write_file(d.file("junk.bin"), junk);
  write_file(d.file("junk.bin.gz"), compress(junk, "gzip"));
  EXPECT_TRUE(error_of(opts({d.file("junk.bin")}))
                  .starts_with(d.file("junk.bin") +
                               ": this looks like a binary file, not UTF-8 text: a NUL byte at byte " +
                               std::to_string(junk.find('\0')) + "; "))
      << error_of(opts({d.file("junk.bin")}));
  EXPECT_NE(error_of(opts({d.file("junk.bin.gz")}))
                .find("a NUL byte at byte " + std::to_string(junk.find('\0')) + " of its decompressed data"),
            std::string::npos)
      << error_of(opts({d.file("junk.bin.gz")}));

  // --skip-bad-files gives it up as any other file that cannot be read, saying why, and goes on.
  write_file(d.file("ok.txt"), "a document\n");
  CorpusOptions skip = opts({d.file("ls"), d.file("ok.txt")});
  skip.skip_bad_files = true;
  WarningCapture warnings;
  EXPECT_EQ(read_corpus(skip).docs.back(), "a document");
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_NE(warnings.messages()[0].find("this looks like a binary file"), std::string::npos) << warnings.messages()[0];
}

// Text refused in the encoding it was read in: the message names that encoding; the hint names the
// UTF-16/32 the bytes read in, or asks whether the given encoding is the file's.
TEST(CorpusReader, TextInAnotherEncodingNamesTheOneItWasReadIn) {
  TempDir d;
  std::string utf16;  // UTF-16BE without a byte-order mark
  for (char c : std::string(20000, 'x') + "\n") utf16 += std::string{'\0', c};
  write_file(d.file("u16be.txt"), utf16);
  CorpusOptions o = opts({d.file("u16be.txt")});
  BadInput e = bad_input_of(o);
  EXPECT_TRUE(std::string(e.what()).ends_with("this is not UTF-8 text")) << e.what();
  EXPECT_NE(e.hint().find("it reads as UTF-16BE: pass --encoding UTF-16BE"), std::string::npos) << e.hint();
  o.encodings = {"latin1"};
  e = bad_input_of(o);
  EXPECT_NE(std::string(e.what()).find(" bytes of text decoded from latin1 ("), std::string::npos) << e.what();
  EXPECT_TRUE(std::string(e.what()).ends_with("this is not latin1 text")) << e.what();
  EXPECT_NE(e.hint().find("--encoding UTF-16BE"), std::string::npos) << e.hint();

  std::string latin1;
  for (int i = 0; i < 3000; ++i) latin1 += "Le caf\xE9 \xE0 c\xF4t\xE9.\n";
  write_file(d.file("latin1.txt"), latin1);
  o = opts({d.file("latin1.txt")});
  o.encodings = {"shift_jis"};
  e = bad_input_of(o);
  EXPECT_TRUE(std::string(e.what()).ends_with("this is not shift_jis text")) << e.what();
  EXPECT_NE(e.hint().find("is shift_jis its encoding?"), std::string::npos) << e.hint();
}

TEST(CorpusReader, Utf16FileWithMarkAndCrlfEqualsItsUtf8Twin) {
  TempDir d;
  write_file(d.file("u8.txt"), "première ligne\r\nsecond ✓\r\n");
  // The same text as Windows Notepad's "Unicode": UTF-16LE with a byte-order mark, CRLF line ends.
  std::string u16 = "\xFF\xFE";
  for (char32_t c : std::u32string(U"première ligne\r\nsecond ✓\r\n")) {
    u16.push_back(char(c & 0xFF));
    u16.push_back(char(c >> 8));
  }
  write_file(d.file("u16.txt"), u16);
  auto want = read_corpus(opts({d.file("u8.txt")}));
  auto got = read_corpus(opts({d.file("u16.txt")}));
  EXPECT_EQ(got.docs, want.docs);
  EXPECT_EQ(got.docs, (std::vector<std::string>{"première ligne", "second ✓"}));
  EXPECT_EQ(got.total.invalid_utf8 + got.total.nul_removed, 0u);
  EXPECT_EQ(got.total.files_decoded, 1u);
}

TEST(CorpusReader, BinaryGarbageDoesNotCrash) {
  TempDir d;
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245 + 12345;
    junk.push_back(char(x >> 16));
  }
  write_file(d.file("junk.bin"), junk);
  CorpusOptions o = opts({d.file("junk.bin")});
  o.repair_invalid_utf8 = true;
  auto r = read_corpus(o);
  EXPECT_GT(r.total.invalid_utf8, 0u);
  for (const auto& doc : r.docs) EXPECT_EQ(doc.find('\0'), std::string::npos);
}

TEST(CorpusReader, ForcedFormatOverridesDetection) {
  TempDir d;
  write_file(d.file("j.txt"), "{\"text\":\"x\"}\n");
  auto o = opts({d.file("j.txt")});
  o.format = Format::Text;
  EXPECT_EQ(read_corpus(o).docs, (std::vector<std::string>{"{\"text\":\"x\"}"}));
}

TEST(CorpusReader, MediaWikiXmlIsDetectedFromItsBytes) {
  TempDir d;
  write_file(d.file("dump.xml"),
             "<?xml version=\"1.0\"?>\n<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\">\n<page><title>A"
             "</title><ns>0</ns><id>1</id><revision><text>Some [[text]].</text></revision></page>\n</mediawiki>\n");
  EXPECT_EQ(read_corpus(opts({d.file("dump.xml")})).docs, (std::vector<std::string>{"Some text."}));
}

TEST(CorpusReader, MissingPathsAndEmptyInputAreClearErrors) {
  TempDir d;
  EXPECT_THROW(read_corpus(opts({d.file("nope.txt")})), BadInput);
  EXPECT_THROW(read_corpus(opts({d.file("*.nothing")})), BadInput);
  EXPECT_THROW(read_corpus(opts({})), BadInput);
  write_file(d.file("empty.txt"), "\n\n  \n");
  try {
    read_corpus(opts({d.file("empty.txt")}));
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("no documents"), std::string::npos);
  }
}

TEST(CorpusReader, UnknownFormatListsTheChoices) {
  try {
    parse_format("orc");
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(e.hint().find("jsonl"), std::string::npos);
    EXPECT_NE(e.hint().find("wikiextractor"), std::string::npos);
    EXPECT_NE(e.hint().find("parquet"), std::string::npos);
  }
}

TEST(CorpusReader, TruncatedCompressedFileKeepsEarlierCounts) {
  TempDir d;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "document number " + std::to_string(i) + "\n";
  std::string c = compress(text, "gzip");
  write_file(d.file("cut.gz"), c.substr(0, c.size() * 3 / 4));
  CorpusReader r(opts({d.file("cut.gz")}));
  Document doc;
  uint64_t n = 0;
  EXPECT_THROW(
      {
        while (r.next(doc)) ++n;
      },
      BadInput);
  EXPECT_GT(n, 0u);
  EXPECT_EQ(r.total().documents, n);
}

// --skip-bad-files: the documents of a damaged file read before the damage stay, the file is counted
// and named in a warning, and the next file is read.
TEST(CorpusReader, SkipBadFilesKeepsWhatCameBeforeTheDamageAndGoesOn) {
  TempDir d;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "document number " + std::to_string(i) + "\n";
  std::string c = compress(text, "gzip");
  write_file(d.file("cut.gz"), c.substr(0, c.size() * 3 / 4));
  write_file(d.file("good.txt"), "after one\nafter two\n");
  auto o = opts({d.file("cut.gz"), d.file("good.txt")});
  EXPECT_THROW(read_corpus(o), BadInput);
  o.skip_bad_files = true;
  WarningCapture warnings;
  Read r = read_corpus(o);
  ASSERT_GT(r.docs.size(), 1000u);
  EXPECT_LT(r.docs.size(), 20000u);
  EXPECT_EQ(r.docs[0], "document number 0");
  EXPECT_EQ(r.docs.back(), "after two");
  EXPECT_EQ(r.stats[0].bad_files_skipped, 1u);
  EXPECT_EQ(r.stats[0].documents + 2, r.docs.size());
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_NE(warnings.messages()[0].find("cut.gz"), std::string::npos);
}

TEST(CorpusReader, TextNamedLikeAParquetFileIsRefusedNamingIt) {
  TempDir d;
  write_file(d.file("train-00000.parquet"), "<html>404 Not Found</html>\n");
  try {
    read_corpus(opts({d.file("train-00000.parquet")}));
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("train-00000.parquet"), std::string::npos);
  }
  auto o = opts({d.file("train-00000.parquet")});
  o.format = Format::Text;  // said explicitly, it is text
  EXPECT_EQ(read_corpus(o).docs.size(), 1u);
}

}  // namespace
}  // namespace bertpt::text
