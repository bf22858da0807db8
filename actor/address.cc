#include "actor/address.h"

#include "absl/strings/numbers.h"
#include "base/string_view.h"

namespace cairn::actor {
namespace {

constexpr std::string_view kScheme = "akka://";

absl::Status Bad(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      base::StrCat("address '", std::string(text), "' ", std::string(why)));
}

}  // namespace

absl::StatusOr<std::pair<Address, size_t>> Address::ParsePrefix(
    std::string_view text) {
  if (!text.starts_with(kScheme)) {
    return Bad(text, "does not start with akka://");
  }
  size_t end = text.find('/', kScheme.size());
  if (end == std::string_view::npos) end = text.size();
  // An element of the path may hold '#', the uid's separator, only after
  // the address; a '#' before the first '/' ends the address too.
  if (size_t hash = text.find('#', kScheme.size()); hash < end) end = hash;
  const std::string_view authority =
      text.substr(kScheme.size(), end - kScheme.size());
  const std::string_view whole = text.substr(0, end);
  const size_t at = authority.find('@');
  const std::string_view system = authority.substr(0, at);
  if (system.empty()) return Bad(whole, "names no actor system");
  if (at == std::string_view::npos) {
    return std::make_pair(Address(std::string(system)), end);
  }
  std::string_view host_port = authority.substr(at + 1);
  std::string_view host;
  std::string_view port;
  if (host_port.starts_with('[')) {
    const size_t close = host_port.find(']');
    if (close == std::string_view::npos) {
      return Bad(whole, "has an IPv6 host without its closing ']'");
    }
    host = host_port.substr(1, close - 1);
    std::string_view after = host_port.substr(close + 1);
    if (!after.starts_with(':')) return Bad(whole, "has no ':port'");
    port = after.substr(1);
  } else {
    const size_t colon = host_port.rfind(':');
    if (colon == std::string_view::npos) return Bad(whole, "has no ':port'");
    host = host_port.substr(0, colon);
    port = host_port.substr(colon + 1);
  }
  if (host.empty()) return Bad(whole, "has an empty host");
  int port_number = 0;
  if (!absl::SimpleAtoi(base::Av(port), &port_number) || port_number < 1 ||
      port_number > 65535) {
    return Bad(whole, "has a port that is not a number from 1 to 65535");
  }
  return std::make_pair(
      Address(std::string(system), std::string(host), port_number), end);
}

absl::StatusOr<Address> Address::Parse(std::string_view text) {
  absl::StatusOr<std::pair<Address, size_t>> parsed = ParsePrefix(text);
  if (!parsed.ok()) return parsed.status();
  if (parsed->second != text.size()) {
    return Bad(text, "has something after the address");
  }
  return std::move(parsed->first);
}

std::string Address::ToString() const {
  if (host_.empty()) return base::StrCat(kScheme, system_);
  const bool ipv6 = host_.find(':') != std::string::npos;
  return base::StrCat(kScheme, system_, "@", ipv6 ? "[" : "", host_,
                      ipv6 ? "]" : "", ":", port_);
}

}  // namespace cairn::actor
