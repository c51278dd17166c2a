// Where text written in pieces goes: a string, a stdio stream, or a file written atomically
// (AtomicFileWriter in files.hpp). Streamed documents (json_stream.hpp) write through these.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace smcompat {

/// Where streamed text goes, in pieces.
class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void write(std::string_view text) = 0;
};

/// Appends to a string (tests, the tree-free small cases).
class StringSink final : public TextSink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  void write(std::string_view text) override { out_.append(text); }

 private:
  std::string& out_;
};

/// Writes through stdio (stdout): buffered by the FILE; ferror() tells a failed write afterwards.
class StdioSink final : public TextSink {
 public:
  explicit StdioSink(std::FILE* file) : file_(file) {}
  void write(std::string_view text) override { std::fwrite(text.data(), 1, text.size(), file_); }

 private:
  std::FILE* file_;
};

}  // namespace smcompat
