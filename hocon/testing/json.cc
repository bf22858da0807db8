#include "hocon/testing/json.h"

#include <cstdlib>
#include <set>

namespace cairn::hocon::testing {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::optional<Json> Document(std::string* error) {
    std::optional<Json> v = Value();
    Space();
    if (v && pos_ != text_.size()) v.reset();
    if (!v) *error = "invalid JSON at byte " + std::to_string(pos_);
    return v;
  }

 private:
  void Space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
            text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    Space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  std::optional<Json> Value() {
    Space();
    if (pos_ >= text_.size()) return std::nullopt;
    Json v;
    char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      v.type = Json::Type::kObject;
      if (Eat('}')) return v;
      do {
        Space();
        std::optional<std::string> key = String();
        if (!key || !Eat(':')) return std::nullopt;
        std::optional<Json> field = Value();
        if (!field) return std::nullopt;
        v.object[*key] = *std::move(field);
      } while (Eat(','));
      if (!Eat('}')) return std::nullopt;
    } else if (c == '[') {
      ++pos_;
      v.type = Json::Type::kArray;
      if (Eat(']')) return v;
      do {
        std::optional<Json> item = Value();
        if (!item) return std::nullopt;
        v.array.push_back(*std::move(item));
      } while (Eat(','));
      if (!Eat(']')) return std::nullopt;
    } else if (c == '"') {
      std::optional<std::string> s = String();
      if (!s) return std::nullopt;
      v.type = Json::Type::kString;
      v.string = *std::move(s);
    } else if (Word("true")) {
      v.type = Json::Type::kBool;
      v.boolean = true;
    } else if (Word("false")) {
      v.type = Json::Type::kBool;
    } else if (Word("null")) {
      v.type = Json::Type::kNull;
    } else {
      std::size_t start = pos_;
      while (pos_ < text_.size() &&
             std::string_view("+-0123456789.eE").find(text_[pos_]) !=
                 std::string_view::npos) {
        ++pos_;
      }
      if (start == pos_) return std::nullopt;
      std::string n(text_.substr(start, pos_ - start));
      char* end = nullptr;
      v.type = Json::Type::kNumber;
      v.number = std::strtod(n.c_str(), &end);
      if (end != n.c_str() + n.size()) return std::nullopt;
    }
    return v;
  }

  std::optional<std::string> String() {
    if (pos_ >= text_.size() || text_[pos_] != '"') return std::nullopt;
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return std::nullopt;
      char e = text_[pos_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) return std::nullopt;
          unsigned cp =
              std::stoul(std::string(text_.substr(pos_, 4)), nullptr, 16);
          pos_ += 4;
          // The test data only escapes characters of the BMP.
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default:
          out.push_back(e);
      }
    }
    if (pos_ >= text_.size()) return std::nullopt;
    ++pos_;
    return out;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

const Json* Json::Find(std::string_view key) const {
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &it->second;
}

std::optional<Json> ParseJson(std::string_view text, std::string* error) {
  return Reader(text).Document(error);
}

bool SameValue(const ConfigValue& actual, const Json& expected,
               const std::string& at, std::string* why) {
  auto differ = [&](const std::string& what) {
    *why = (at.empty() ? std::string("<root>") : at) + ": " + what +
           "; actual " + actual.ToJson();
    return false;
  };
  switch (expected.type) {
    case Json::Type::kNull:
      return actual.IsNull() || differ("expected null");
    case Json::Type::kBool: {
      if (actual.type() != ValueType::kBoolean) return differ("expected bool");
      return *actual.AsBool() == expected.boolean || differ("wrong boolean");
    }
    case Json::Type::kNumber: {
      if (actual.type() != ValueType::kNumber) return differ("expected number");
      return *actual.AsDouble() == expected.number ||
             differ("expected " + std::to_string(expected.number));
    }
    case Json::Type::kString: {
      if (actual.type() != ValueType::kString) return differ("expected string");
      return *actual.AsString() == expected.string ||
             differ("expected \"" + expected.string + "\"");
    }
    case Json::Type::kArray: {
      if (actual.type() != ValueType::kList) return differ("expected a list");
      std::vector<ConfigValue> items = *actual.AsList();
      if (items.size() != expected.array.size()) {
        return differ("expected " + std::to_string(expected.array.size()) +
                      " elements");
      }
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (!SameValue(items[i], expected.array[i],
                       at + "[" + std::to_string(i) + "]", why)) {
          return false;
        }
      }
      return true;
    }
    case Json::Type::kObject: {
      if (actual.type() != ValueType::kObject) {
        return differ("expected an object");
      }
      std::vector<std::string> keys = actual.Keys();
      std::set<std::string> expected_keys;
      for (const auto& [k, v] : expected.object) expected_keys.insert(k);
      if (std::set<std::string>(keys.begin(), keys.end()) != expected_keys) {
        std::string want;
        for (const std::string& k : expected_keys) want += " '" + k + "'";
        return differ("expected keys" + want);
      }
      for (const auto& [k, v] : expected.object) {
        std::string sub = at.empty() ? k : at + "." + k;
        if (!SameValue(*actual.Get(k), v, sub, why)) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace cairn::hocon::testing
