// MediaWiki wikitext to plain prose, with the behaviour a user of WikiExtractor (3.1, its default
// options) expects: templates ({{…}}), tables ({|…|}), references, comments, files and images,
// categories, interlanguage links, magic words and HTML tags go; internal links [[target|label]]
// become their label (plus the link trail: [[bank]]s -> banks), external links [url label] their
// label; bold and italic quotes go; headings become lines ending in "." and are kept only when
// prose follows them; list items and table residue are dropped; HTML entities are decoded. The
// differences from WikiExtractor that remain are listed in docs/corpora.md.
#pragma once

#include <string>
#include <string_view>

namespace bertpt::text {

// The page's prose, one paragraph per line, no blank lines; empty for a page with none.
std::string wikitext_to_text(std::string_view wikitext);

// Whether the wikitext is a redirect page ("#REDIRECT [[Target]]", any case).
bool is_redirect_wikitext(std::string_view wikitext);

}  // namespace bertpt::text
