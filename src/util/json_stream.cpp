// Streamed JSON in nlohmann's dump layout, and the same calls building a tree
// (include/smcompat/util/json_stream.hpp).
#include "smcompat/util/json_stream.hpp"

#include <algorithm>
#include <stdexcept>

namespace smcompat {

namespace {

std::string dump(const nlohmann::json& v, int indent) {
  return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

// ---- the call discipline, shared by both writers -----------------------------------------------

void JsonWriter::before_value() {
  if (frames_.empty()) {
    if (root_done_) throw std::logic_error("json writer: a second document value");
    root_done_ = true;
    return;
  }
  Frame& top = frames_.back();
  if (top.object) {
    if (!top.key_pending) throw std::logic_error("json writer: an object's value without a key");
    top.key_pending = false;
    return;
  }
  on_element(top.count == 0);
  ++top.count;
}

void JsonWriter::begin_object() {
  before_value();
  frames_.push_back({true, 0, false, {}});
  on_begin(true);
}

void JsonWriter::begin_array() {
  before_value();
  frames_.push_back({false, 0, false, {}});
  on_begin(false);
}

void JsonWriter::end(bool object) {
  if (frames_.empty() || frames_.back().object != object || frames_.back().key_pending)
    throw std::logic_error("json writer: a container closed out of order");
  size_t count = frames_.back().count;
  frames_.pop_back();
  on_end(object, count);
}

void JsonWriter::end_object() { end(true); }
void JsonWriter::end_array() { end(false); }

void JsonWriter::key(std::string_view name) {
  if (frames_.empty() || !frames_.back().object || frames_.back().key_pending)
    throw std::logic_error("json writer: a key outside an object");
  Frame& top = frames_.back();
  // nlohmann's objects are std::maps ordered by std::string's <: the text must follow it.
  if (top.count > 0 && !(top.last_key < name))
    throw std::logic_error("json writer: key \"" + std::string(name) + "\" after \"" +
                           top.last_key + "\"");
  top.last_key.assign(name);
  top.key_pending = true;
  on_key(name, top.count == 0);
  ++top.count;
}

void JsonWriter::value(nlohmann::json v) {
  before_value();
  on_value(std::move(v));
}

void JsonWriter::object(nlohmann::json fields, std::vector<StreamedField> streamed) {
  if (!fields.is_object()) throw std::logic_error("json writer: object() fields not an object");
  std::sort(streamed.begin(), streamed.end(),
            [](const StreamedField& a, const StreamedField& b) { return a.key < b.key; });
  begin_object();
  auto ready = fields.begin();
  auto more = streamed.begin();
  while (ready != fields.end() || more != streamed.end()) {
    if (more == streamed.end() || (ready != fields.end() && ready.key() < more->key)) {
      key(ready.key());
      value(std::move(ready.value()));
      ++ready;
    } else {
      if (ready != fields.end() && ready.key() == more->key)
        throw std::logic_error("json writer: field \"" + more->key + "\" given twice");
      key(more->key);
      more->write(*this);
      ++more;
    }
  }
  end_object();
}

// ---- text -------------------------------------------------------------------------------------

void JsonTextWriter::newline(size_t depth) {
  if (indent_ < 0) return;
  sink_.write("\n");
  if (size_t n = depth * static_cast<size_t>(indent_)) sink_.write(std::string(n, ' '));
}

void JsonTextWriter::on_begin(bool object) { sink_.write(object ? "{" : "["); }

void JsonTextWriter::on_end(bool object, size_t count) {
  if (count > 0) newline(depth());
  sink_.write(object ? "}" : "]");
}

void JsonTextWriter::on_key(std::string_view name, bool first) {
  if (!first) sink_.write(",");
  newline(depth());
  sink_.write(dump(nlohmann::json(std::string(name)), -1));
  sink_.write(indent_ < 0 ? ":" : ": ");
}

void JsonTextWriter::on_element(bool first) {
  if (!first) sink_.write(",");
  newline(depth());
}

void JsonTextWriter::on_value(nlohmann::json v) {
  std::string text = dump(v, indent_);
  const size_t shift = indent_ > 0 ? depth() * static_cast<size_t>(indent_) : 0;
  if (shift == 0 || text.find('\n') == std::string::npos) {
    sink_.write(text);
    return;
  }
  // dump() lays the value out at depth 0; every line break in it is structural (strings escape
  // theirs), so moving it to this depth is indenting each line after the first.
  const std::string pad(shift, ' ');
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
    sink_.write(std::string_view(text).substr(from, nl + 1 - from));
    sink_.write(pad);
  }
  sink_.write(std::string_view(text).substr(from));
}

// ---- tree -------------------------------------------------------------------------------------

nlohmann::json& JsonTreeWriter::place(nlohmann::json v) {
  if (open_.empty()) {
    root_ = std::move(v);
    return root_;
  }
  nlohmann::json& top = *open_.back();
  if (top.is_array()) {
    top.push_back(std::move(v));
    return top.back();
  }
  nlohmann::json& slot = top[key_];
  slot = std::move(v);
  return slot;
}

void JsonTreeWriter::on_begin(bool object) {
  // A parent array never grows while this child is open, so the pointer stays valid.
  open_.push_back(&place(object ? nlohmann::json::object() : nlohmann::json::array()));
}

void JsonTreeWriter::on_end(bool, size_t) { open_.pop_back(); }

void JsonTreeWriter::on_key(std::string_view name, bool) { key_.assign(name); }

void JsonTreeWriter::on_value(nlohmann::json v) { place(std::move(v)); }

}  // namespace smcompat
