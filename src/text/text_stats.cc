#include "text/text_stats.h"

#include <nlohmann/json.hpp>

namespace bertpt::text {

SourceStats& SourceStats::operator+=(const SourceStats& o) {
  files += o.files;
  bytes += o.bytes;
  disk_bytes += o.disk_bytes;
  documents += o.documents;
  characters += o.characters;
  empty_skipped += o.empty_skipped;
  invalid_utf8 += o.invalid_utf8;
  nul_removed += o.nul_removed;
  long_lines_split += o.long_lines_split;
  bad_lines_skipped += o.bad_lines_skipped;
  pages += o.pages;
  pages_redirect += o.pages_redirect;
  pages_other_namespace += o.pages_other_namespace;
  nulls_skipped += o.nulls_skipped;
  bad_files_skipped += o.bad_files_skipped;
  files_decoded += o.files_decoded;
  return *this;
}

nlohmann::json to_json(const SourceStats& s) {
  nlohmann::json j = {{"name", s.name},
                      {"files", s.files},
                      {"bytes", s.bytes},
                      {"disk_bytes", s.disk_bytes},
                      {"documents", s.documents},
                      {"characters", s.characters},
                      {"empty_skipped", s.empty_skipped},
                      {"invalid_utf8_repaired", s.invalid_utf8},
                      {"nul_removed", s.nul_removed},
                      {"long_lines_split", s.long_lines_split},
                      {"bad_lines_skipped", s.bad_lines_skipped}};
  if (s.pages > 0) {  // only sources that are MediaWiki dumps
    j["pages"] = s.pages;
    j["pages_redirect"] = s.pages_redirect;
    j["pages_other_namespace"] = s.pages_other_namespace;
  }
  if (s.nulls_skipped > 0) j["nulls_skipped"] = s.nulls_skipped;
  if (s.bad_files_skipped > 0) j["bad_files_skipped"] = s.bad_files_skipped;
  if (s.files_decoded > 0) j["files_decoded"] = s.files_decoded;
  return j;
}

}  // namespace bertpt::text
