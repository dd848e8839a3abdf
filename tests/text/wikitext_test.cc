// Wikitext to prose, rule by rule, with the outputs WikiExtractor 3.1 gives for the same markup
// (tests/peer/wikiextractor_peer.py compares whole dumps against the real WikiExtractor).
#include "text/wikitext.h"

#include <gtest/gtest.h>

namespace bertpt::text {
namespace {

TEST(Wikitext, TemplatesTablesCommentsAndReferencesGo) {
  EXPECT_EQ(wikitext_to_text("{{Infobox person|name={{nowrap|A B}}}}Alan was born.<ref>Smith 2001</ref>"
                             "<!-- hidden --> He died.<ref name=\"x\" />"),
            "Alan was born. He died.");
  EXPECT_EQ(wikitext_to_text("Before.\n{| class=\"wikitable\"\n|-\n| a || b\n|}\nAfter."), "Before.\nAfter.");
  EXPECT_EQ(wikitext_to_text("Open {{template with no end\nstill template"), "Open");
}

TEST(Wikitext, InternalLinksBecomeTheirLabelWithTheLinkTrail) {
  EXPECT_EQ(wikitext_to_text("A [[river bank|bank]] and [[bank]]s and [[Paris#History|]]."),
            "A bank and banks and Paris.");
  EXPECT_EQ(wikitext_to_text("See [[wikt:cat|cat]] here."), "See cat here.");
}

TEST(Wikitext, FilesCategoriesAndInterlanguageLinksGo) {
  EXPECT_EQ(wikitext_to_text("[[File:Cat.jpg|thumb|A [[cat]] on a [[mat]]]]The cat sat.\n"
                             "[[Category:Cats]]\n[[de:Katze]]"),
            "The cat sat.");
}

TEST(Wikitext, ExternalLinksKeepTheirLabelOnly) {
  EXPECT_EQ(wikitext_to_text("Read [https://example.org the report] now [http://x.org] ok [not a link]."),
            "Read the report now ok [not a link].");
}

TEST(Wikitext, BoldGoesItalicBecomesQuotedMagicWordsGo) {
  EXPECT_EQ(wikitext_to_text("__NOTOC__'''Bold''' and ''italic'' and '''''both'''''."),
            "Bold and \"italic\" and \"both\".");
}

TEST(Wikitext, HeadingsAreKeptOnlyBeforeProseAndListsAreDropped) {
  EXPECT_EQ(wikitext_to_text("Intro.\n== History ==\nIt began.\n== See also ==\n* [[Other]]\n* [[Thing]]\n"
                             "== Why? ==\n=== Sub ===\nText here.\n:Indented line."),
            "Intro.\nHistory.\nIt began.\nWhy?\nSub.\nText here.\nIndented line.");
}

TEST(Wikitext, HtmlTagsGoTheirTextStaysExceptDiscardedElements) {
  EXPECT_EQ(wikitext_to_text("A <span style=\"x\">red</span> word<br/>and <small>tiny</small> <sup>2</sup> end."),
            "A red word and 2 end.");
  EXPECT_EQ(wikitext_to_text("Euler: <math>e^{i\\pi}+1=0</math> holds."), "Euler: formula_1 holds.");
  EXPECT_EQ(wikitext_to_text("<gallery>\nA.jpg|a\n</gallery>\nText."), "Text.");
}

TEST(Wikitext, AngleBracketsThatAreNoTagsStay) {
  // WikiExtractor keeps these as text; a tag name starts with a letter and ends at a space, / or >.
  EXPECT_EQ(wikitext_to_text("Count <36 cells; see <http://example.org/a> and a<b."),
            "Count <36 cells; see <http://example.org/a> and a<b.");
}

TEST(Wikitext, EntitiesAreDecoded) {
  EXPECT_EQ(wikitext_to_text("5&nbsp;km &ndash; R&amp;D &#233;t&#xE9; &bogus; &lt;b&gt;"),
            "5 km \u2013 R&D \u00e9t\u00e9 &bogus; <b>");
}

TEST(Wikitext, LinesOfOnlyPunctuationOrParenthesesAreDropped) {
  EXPECT_EQ(wikitext_to_text("Text.\n(aside)\n...\n--\nMore."), "Text.\nMore.");
  EXPECT_EQ(wikitext_to_text(""), "");
  EXPECT_EQ(wikitext_to_text("{{stub}}\n[[Category:X]]"), "");
}

TEST(Wikitext, Redirects) {
  EXPECT_TRUE(is_redirect_wikitext("#REDIRECT [[Target]]"));
  EXPECT_TRUE(is_redirect_wikitext("  #redirect[[Target]]"));
  EXPECT_FALSE(is_redirect_wikitext("The #REDIRECT keyword"));
}

}  // namespace
}  // namespace bertpt::text
