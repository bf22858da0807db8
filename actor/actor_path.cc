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

ActorPath::ActorPath(Address address, std::vector<std::string> elements,
                     int64_t uid)
    : address_(std::move(address)), elements_(std::move(elements)), uid_(uid) {}

absl::StatusOr<ActorPath> ActorPath::Parse(std::string_view text) {
  absl::StatusOr<std::pair<Address, size_t>> address =
      Address::ParsePrefix(text);
  if (!address.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("actor path: ", address.status().message()));
  }
  std::string_view rest = text.substr(address->second);
  int64_t uid = 0;
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) {
    std::string digits(rest.substr(hash + 1));
    if (!absl::SimpleAtoi(digits, &uid)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "actor path '", std::string(text), "' has a bad uid after '#'"));
    }
    rest = rest.substr(0, hash);
  }
  std::vector<std::string> parts = absl::StrSplit(
      absl::string_view(rest.data(), rest.size()), '/', absl::SkipEmpty());
  return ActorPath(std::move(address->first), std::move(parts), uid);
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
  return ActorPath(address_, std::move(elements), uid);
}

ActorPath ActorPath::WithUid(int64_t uid) const {
  return ActorPath(address_, elements_, uid);
}

std::string ActorPath::ToString() const {
  return absl::StrCat(address_.ToString(), "/", absl::StrJoin(elements_, "/"));
}

std::string ActorPath::ToStringWithUid() const {
  return uid_ == 0 ? ToString() : absl::StrCat(ToString(), "#", uid_);
}

}  // namespace cairn::actor
