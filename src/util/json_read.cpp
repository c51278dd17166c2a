// parse_json_document (util/json_read.hpp): nlohmann's DOM builder through its SAX interface, so
// that where a parse stopped and why are kept for both kinds of failure.
#include "smcompat/util/json_read.hpp"

#include <algorithm>
#include <exception>
#include <type_traits>

namespace smcompat {

namespace {

using nlohmann::json;

struct LocatingDomParser : nlohmann::detail::json_sax_dom_parser<json> {
  explicit LocatingDomParser(json& root)
      : nlohmann::detail::json_sax_dom_parser<json>(root, /*allow_exceptions=*/false) {}
  template <class Exception>
  bool parse_error(std::size_t pos, const std::string& last_token, const Exception& ex) {
    position = pos;
    token = last_token;
    what = ex.what();
    is_parse_error = std::is_same_v<Exception, json::parse_error>;
    return false;
  }
  std::size_t position = 0;
  std::string token, what;
  bool is_parse_error = false;
};

}  // namespace

Result<nlohmann::json> parse_json_document(std::string_view text, const std::string& file) {
  auto located = [&](std::string why, uint64_t at) {
    Error e = make_error("not a JSON document: " + why, std::min<uint64_t>(at, text.size()));
    if (!file.empty()) e.file = file;
    return e;
  };
  try {
    json doc;
    LocatingDomParser sax(doc);
    if (json::sax_parse(text.begin(), text.end(), &sax)) return doc;
    std::string what = sax.what;
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    if (sax.is_parse_error) {
      // "parse error at line 1, column 9: syntax error ...": the offset says the line and
      // column. nlohmann counts bytes from 1; the position is where reading stopped.
      if (auto p = what.find(": "); p != std::string::npos) what = what.substr(p + 2);
      return located(what, sax.position > 0 ? sax.position - 1 : 0);
    }
    // A number beyond every type (out_of_range 406): at the token's start.
    return located(what, sax.position >= sax.token.size() ? sax.position - sax.token.size() : 0);
  } catch (const std::exception& e) {  // not expected: the SAX parser reports instead of throwing
    return located(e.what(), 0);
  }
}

}  // namespace smcompat
