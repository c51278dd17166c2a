// JSON documents written as they are produced (issue 32): a document is described once, against
// JsonWriter, and comes out either as text in exactly the layout of nlohmann::json::dump (keys in
// the order nlohmann's std::map keeps them, the same indentation, escaping and numbers) or as a
// tree. A scan of a big wheel, an index or a fleet of 10,000 nodes is then written element by
// element instead of being built whole first, and the tree (for the Python API and tests) stays
// byte-identical to the text by construction.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/util/text_sink.hpp"

namespace smcompat {

class JsonWriter;

/// A field of an object whose value is written by a function (a big array, element by element).
struct StreamedField {
  std::string key;
  std::function<void(JsonWriter&)> write;
};

/// The output side of a JSON document, called in document order. Keys of an object must come in
/// nlohmann's order (ascending byte order: std::string's <), which is what makes the streamed text
/// equal the dump of the tree; a key out of order, a value without a key, or an unclosed
/// container is a programming error (std::logic_error), caught by the tests of each document.
class JsonWriter {
 public:
  virtual ~JsonWriter() = default;

  void begin_object();
  void key(std::string_view name);
  void end_object();
  void begin_array();
  void end_array();
  /// A whole value: an array element, an object's field after key(), or the document.
  void value(nlohmann::json v);

  /// An object whose small fields are ready (`fields`, an object) and whose big ones are written
  /// by `streamed`; emitted merged in key order. A key in both is a logic_error.
  void object(nlohmann::json fields, std::vector<StreamedField> streamed);

  /// An array with one element per item of `items`, each written by `each(writer, item)`.
  template <class Range, class Each>
  void array(const Range& items, Each each) {
    begin_array();
    for (const auto& item : items) each(*this, item);
    end_array();
  }

  /// True once one complete value (the document) has been written.
  bool complete() const { return root_done_ && frames_.empty(); }

 protected:
  size_t depth() const { return frames_.size(); }
  virtual void on_begin(bool object) = 0;
  virtual void on_end(bool object, size_t count) = 0;  // after the frame is popped
  virtual void on_key(std::string_view name, bool first) = 0;
  virtual void on_element(bool first) = 0;  // before an array element
  virtual void on_value(nlohmann::json v) = 0;

 private:
  struct Frame {
    bool object = false;
    size_t count = 0;
    bool key_pending = false;
    std::string last_key;
  };
  void before_value();
  void end(bool object);
  std::vector<Frame> frames_;
  bool root_done_ = false;
};

/// Text in nlohmann::json::dump(indent, ' ', false, error_handler_t::replace)'s layout
/// (json_text()): indent -1 is the compact form.
class JsonTextWriter final : public JsonWriter {
 public:
  JsonTextWriter(TextSink& sink, int indent);
  ~JsonTextWriter() override;  // flushes what is buffered

  /// Hands what is buffered to the sink (done by itself when the document is complete).
  void flush();

 protected:
  void on_begin(bool object) override;
  void on_end(bool object, size_t count) override;
  void on_key(std::string_view name, bool first) override;
  void on_element(bool first) override;
  void on_value(nlohmann::json v) override;

 private:
  struct Output;
  void newline(size_t depth);
  void put(std::string_view text);
  int indent_;
  std::unique_ptr<Output> out_;
};

/// The same document as a tree.
class JsonTreeWriter final : public JsonWriter {
 public:
  nlohmann::json take() { return std::move(root_); }

 protected:
  void on_begin(bool object) override;
  void on_end(bool object, size_t count) override;
  void on_key(std::string_view name, bool first) override;
  void on_element(bool first) override {}
  void on_value(nlohmann::json v) override;

 private:
  nlohmann::json& place(nlohmann::json v);
  nlohmann::json root_;
  std::vector<nlohmann::json*> open_;
  std::string key_;
};

/// The tree of a document written by `write` (the API's and tests' form of a streamed document).
inline nlohmann::json json_tree(const std::function<void(JsonWriter&)>& write) {
  JsonTreeWriter tree;
  write(tree);
  return tree.take();
}

/// Writes the document `write` describes as text with nlohmann's layout at `indent`, then the
/// newline that ends a file or a terminal's output: every streamed output of the CLI (scan,
/// fleet, index) goes through this.
void write_json_document(TextSink& sink, int indent, const std::function<void(JsonWriter&)>& write);

}  // namespace smcompat
