// Streamed JSON (include/smcompat/util/json_stream.hpp): the text equals nlohmann's dump of the
// same document at every indent, whatever mix of streamed and ready values wrote it, and the tree
// writer gives the document back; misuse is a logic_error.
#include "smcompat/util/json_stream.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>

namespace smcompat {
namespace {

using nlohmann::json;

std::string dumped(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// Writes `j` through `w`, choosing at random (seeded) whether each container is streamed
// (begin/key/end, or object() with some fields streamed) or handed over whole.
void stream(JsonWriter& w, const json& j, std::mt19937& rng) {
  const unsigned pick = rng() % 3;
  if (j.is_array() && pick != 0) {
    w.begin_array();
    for (const auto& e : j) stream(w, e, rng);
    w.end_array();
  } else if (j.is_object() && pick == 1) {
    w.begin_object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      w.key(it.key());
      stream(w, *it, rng);
    }
    w.end_object();
  } else if (j.is_object() && pick == 2) {
    json ready = json::object();
    std::vector<StreamedField> streamed;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const json& v = *it;  // an element of `j`: alive while the object is written
      if (rng() % 2)
        ready[it.key()] = v;
      else
        streamed.push_back({it.key(), [&v, &rng](JsonWriter& inner) { stream(inner, v, rng); }});
    }
    std::shuffle(streamed.begin(), streamed.end(), rng);  // object() puts them in key order
    w.object(std::move(ready), std::move(streamed));
  } else {
    w.value(j);
  }
}

json random_json(std::mt19937& rng, int depth) {
  static const char* strings[] = {"",          "sm_120",   "é ü 漢字",           "tab\there",
                                  "quote\"\\", "\x01\x1f", "bad \xff\xfe utf-8", "line\nbreak",
                                  "a"};
  switch (depth <= 0 ? rng() % 6 : rng() % 8) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2: {
      static const std::int64_t ints[] = {0, -1, 42, std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max()};
      return ints[rng() % 5];
    }
    case 3:
      return rng() % 2 ? json(std::numeric_limits<std::uint64_t>::max()) : json(7u);
    case 4: {
      static const double doubles[] = {0.1, -0.0, 1e300, 3.0, 2.5e-310, 123456.789};
      return doubles[rng() % 6];
    }
    case 5:
      return strings[rng() % (sizeof strings / sizeof *strings)];
    case 6: {
      json a = json::array();
      for (unsigned n = rng() % 5; n > 0; --n) a.push_back(random_json(rng, depth - 1));
      return a;
    }
    default: {
      json o = json::object();
      for (unsigned n = rng() % 6; n > 0; --n)
        o[strings[rng() % (sizeof strings / sizeof *strings)] + std::to_string(rng() % 3)] =
            random_json(rng, depth - 1);
      return o;
    }
  }
}

TEST(JsonStream, TextEqualsTheDumpAtEveryIndentAndTheTreeEqualsTheDocument) {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 400; ++round) {
    const json doc = random_json(rng, 4);
    for (int indent : {-1, 0, 1, 2, 4}) {
      std::string text;
      StringSink sink(text);
      JsonTextWriter w(sink, indent);
      stream(w, doc, rng);
      ASSERT_TRUE(w.complete());
      ASSERT_EQ(text, dumped(doc, indent)) << "round " << round << " indent " << indent;
    }
    JsonTreeWriter tree;
    stream(tree, doc, rng);
    ASSERT_EQ(tree.take(), doc) << "round " << round;
  }
}

TEST(JsonStream, EmptyStreamedContainersLookLikeTheDumpsOfEmptyOnes) {
  const json doc = {{"a", json::array()}, {"b", json::object()}, {"c", {json::array()}}};
  std::string text;
  StringSink sink(text);
  JsonTextWriter w(sink, 2);
  w.object({{"b", json::object()}},
           {{"c",
             [](JsonWriter& w) {
               w.begin_array();
               w.begin_array();
               w.end_array();
               w.end_array();
             }},
            {"a", [](JsonWriter& w) { w.array(std::vector<int>{}, [](JsonWriter&, int) {}); }}});
  EXPECT_EQ(text, dumped(doc, 2));
}

TEST(JsonStream, MisuseIsALogicError) {
  std::string text;
  StringSink sink(text);
  {
    JsonTextWriter w(sink, 2);
    w.begin_object();
    w.key("b");
    w.value(1);
    EXPECT_THROW(w.key("a"), std::logic_error);  // nlohmann would sort "a" first
    EXPECT_THROW(w.key("b"), std::logic_error);  // a key twice
  }
  {
    JsonTextWriter w(sink, 2);
    w.begin_object();
    EXPECT_THROW(w.value(1), std::logic_error);  // a value without a key
    EXPECT_THROW(w.end_array(), std::logic_error);
  }
  {
    JsonTreeWriter w;
    EXPECT_THROW(w.object({{"files", 1}}, {{"files", [](JsonWriter&) {}}}), std::logic_error);
  }
  {
    JsonTreeWriter w;
    w.value(1);
    EXPECT_THROW(w.value(2), std::logic_error);  // one document
  }
}

}  // namespace
}  // namespace smcompat
