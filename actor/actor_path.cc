#include "actor/actor_path.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace cairn::actor {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-_.*$+:@&=,!~';").find(c) != std::string_view::npos;
}

}  // namespace

ActorPath::ActorPath(std::string system, std::vector<std::string> elements,
                     int64_t uid)
    : system_(std::move(system)), elements_(std::move(elements)), uid_(uid) {}

absl::StatusOr<ActorPath> ActorPath::Parse(std::string_view text) {
  const std::string quoted = absl::StrCat("actor path '", std::string(text));
  std::string_view rest = text;
  if (!rest.starts_with("akka://")) {
    return absl::InvalidArgumentError(
        absl::StrCat(quoted, "' does not start with akka://"));
  }
  rest.remove_prefix(7);
  int64_t uid = 0;
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) {
    std::string digits(rest.substr(hash + 1));
    if (!absl::SimpleAtoi(digits, &uid)) {
      return absl::InvalidArgumentError(
          absl::StrCat(quoted, "' has a bad uid after '#'"));
    }
    rest = rest.substr(0, hash);
  }
  std::vector<std::string> parts = absl::StrSplit(
      absl::string_view(rest.data(), rest.size()), '/', absl::SkipEmpty());
  if (parts.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(quoted, "' names no actor system"));
  }
  std::string system = std::move(parts.front());
  parts.erase(parts.begin());
  return ActorPath(std::move(system), std::move(parts), uid);
}

absl::Status ActorPath::ValidateName(std::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError("actor name must not be empty");
  }
  if (name.front() == '$') {
    return absl::InvalidArgumentError(
        absl::StrCat("actor name '", std::string(name),
                     "' must not start with '$' (reserved)"));
  }
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "actor name '", std::string(name), "' has an invalid character '",
          std::string(1, name[i]), "' at position ", i,
          "; use letters, digits and -_.*$+:@&=,!~';"));
    }
  }
  return absl::OkStatus();
}

const std::string& ActorPath::name() const {
  static const std::string* empty = new std::string();
  return elements_.empty() ? *empty : elements_.back();
}

ActorPath ActorPath::Child(std::string name, int64_t uid) const {
  std::vector<std::string> elements = elements_;
  elements.push_back(std::move(name));
  return ActorPath(system_, std::move(elements), uid);
}

ActorPath ActorPath::WithUid(int64_t uid) const {
  return ActorPath(system_, elements_, uid);
}

std::string ActorPath::ToString() const {
  return absl::StrCat("akka://", system_, "/", absl::StrJoin(elements_, "/"));
}

std::string ActorPath::ToStringWithUid() const {
  return uid_ == 0 ? ToString() : absl::StrCat(ToString(), "#", uid_);
}

}  // namespace cairn::actor
