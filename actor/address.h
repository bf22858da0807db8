#ifndef CAIRN_ACTOR_ADDRESS_H_
#define CAIRN_ACTOR_ADDRESS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace cairn::actor {

// Where an actor system is, the first part of every actor path (Akka's
// Address): `akka://name` for a system reachable only inside its process,
// `akka://name@host:port` for one a transport (remote/) made reachable
// from others. A value type; thread-compatible.
class Address {
 public:
  // A system reachable only inside its process.
  explicit Address(std::string system) : system_(std::move(system)) {}
  // A system reachable at `host` (a name, an IPv4 address, or an IPv6
  // address without brackets) and `port`.
  Address(std::string system, std::string host, int port)
      : system_(std::move(system)), host_(std::move(host)), port_(port) {}

  // Reads `akka://name` or `akka://name@host:port` (IPv6 in brackets:
  // `akka://name@[::1]:25520`); nothing may follow. Fails with
  // InvalidArgument naming the bad part.
  static absl::StatusOr<Address> Parse(std::string_view text);
  // Reads the address at the start of a path, `akka://name@host:port/...`,
  // and says where the path's elements begin (the '/' after the address,
  // or text.size()).
  static absl::StatusOr<std::pair<Address, size_t>> ParsePrefix(
      std::string_view text);

  const std::string& system() const { return system_; }
  // Empty for a process-local address.
  const std::string& host() const { return host_; }
  int port() const { return port_; }
  // Whether other processes can reach it (it has a host and port).
  bool HasGlobalScope() const { return !host_.empty(); }

  // `akka://name` or `akka://name@host:port` (`[...]` around IPv6).
  std::string ToString() const;

  friend bool operator==(const Address& a, const Address& b) {
    return a.system_ == b.system_ && a.host_ == b.host_ && a.port_ == b.port_;
  }
  friend bool operator!=(const Address& a, const Address& b) {
    return !(a == b);
  }
  friend bool operator<(const Address& a, const Address& b) {
    if (a.system_ != b.system_) return a.system_ < b.system_;
    if (a.host_ != b.host_) return a.host_ < b.host_;
    return a.port_ < b.port_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Address& a) {
    return H::combine(std::move(h), a.system_, a.host_, a.port_);
  }
  friend std::ostream& operator<<(std::ostream& os, const Address& a) {
    return os << a.ToString();
  }

 private:
  std::string system_;
  std::string host_;
  int port_ = 0;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ADDRESS_H_
