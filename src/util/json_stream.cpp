// Streamed JSON in nlohmann's dump layout, and the same calls building a tree
// (include/smcompat/util/json_stream.hpp).
#include "smcompat/util/json_stream.hpp"

#include <algorithm>
#include <stdexcept>

namespace smcompat {

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

// nlohmann's own serializer writes every value, at the depth it sits (its `current_indent`), into
// one buffer that goes to the sink in large pieces: the bytes are dump()'s by construction, with
// no string per value and no re-indenting copy. (serializer and output_adapter_protocol are in
// nlohmann's detail namespace; json::dump uses them the same way.)
namespace {

class SinkBuffer final : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit SinkBuffer(TextSink& sink) : sink_(sink) { buffer_.reserve(kFlushAt + 4096); }
  void write_character(char c) override {
    buffer_.push_back(c);
    if (buffer_.size() >= kFlushAt) flush();
  }
  void write_characters(const char* s, std::size_t n) override {
    buffer_.append(s, n);
    if (buffer_.size() >= kFlushAt) flush();
  }
  void flush() {
    if (buffer_.empty()) return;
    sink_.write(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushAt = 256 * 1024;
  TextSink& sink_;
  std::string buffer_;
};

}  // namespace

struct JsonTextWriter::Output {
  explicit Output(TextSink& sink)
      : buffer(std::make_shared<SinkBuffer>(sink)),
        serializer(buffer, ' ', nlohmann::json::error_handler_t::replace) {}
  std::shared_ptr<SinkBuffer> buffer;
  nlohmann::detail::serializer<nlohmann::json> serializer;
};

JsonTextWriter::JsonTextWriter(TextSink& sink, int indent)
    : indent_(indent), out_(std::make_unique<Output>(sink)) {}

JsonTextWriter::~JsonTextWriter() { flush(); }

void JsonTextWriter::flush() { out_->buffer->flush(); }

void JsonTextWriter::put(std::string_view text) {
  out_->buffer->write_characters(text.data(), text.size());
}

void JsonTextWriter::newline(size_t depth) {
  if (indent_ < 0) return;
  out_->buffer->write_character('\n');
  for (size_t n = depth * static_cast<size_t>(indent_); n > 0; --n)
    out_->buffer->write_character(' ');
}

void JsonTextWriter::on_begin(bool object) { put(object ? "{" : "["); }

void JsonTextWriter::on_end(bool object, size_t count) {
  if (count > 0) newline(depth());
  put(object ? "}" : "]");
  if (depth() == 0) flush();
}

void JsonTextWriter::on_key(std::string_view name, bool first) {
  if (!first) put(",");
  newline(depth());
  out_->serializer.dump(nlohmann::json(std::string(name)), false, false, 0);
  put(indent_ < 0 ? ":" : ": ");
}

void JsonTextWriter::on_element(bool first) {
  if (!first) put(",");
  newline(depth());
}

void JsonTextWriter::on_value(nlohmann::json v) {
  if (indent_ < 0)
    out_->serializer.dump(v, false, false, 0);
  else
    out_->serializer.dump(v, true, false, static_cast<unsigned>(indent_),
                          static_cast<unsigned>(depth() * static_cast<size_t>(indent_)));
  if (depth() == 0) flush();
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

void write_json_document(TextSink& sink, int indent,
                         const std::function<void(JsonWriter&)>& write) {
  {
    JsonTextWriter json(sink, indent);
    write(json);
  }  // the writer hands its buffer to the sink here, before the newline
  sink.write("\n");
}

}  // namespace smcompat
