#ifndef CAIRN_REMOTE_TESTING_NODE_MESSAGES_H_
#define CAIRN_REMOTE_TESTING_NODE_MESSAGES_H_

// What the multi-process test and its node processes (node_main.cc) send
// each other, and the one way both build their actor systems: the same
// registry and settings on both sides of every connection.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "nlohmann/json.hpp"

namespace cairn::remote::testing {

// To a node's relay: Forward `text` to the actor at path `to` (another
// system's, given in text as a ref travels: its path).
struct Relay {
  std::string to;
  std::string text;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Relay, to, text)

// To a node's order checker: expect `total` Numbered messages, then send
// the Summary to the sender of this (which gets "expecting" at once).
struct Expect {
  int total = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Expect, total)

// The seq-th message of its sender (0, 1, 2, ...).
struct Numbered {
  int seq = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Numbered, seq)

// What the order checker received: per sender's path, how many, and each
// message that did not come next in its sender's order.
struct Summary {
  std::map<std::string, int> received;
  std::vector<std::string> out_of_order;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Summary, received, out_of_order)

// A remote system named `name` on 127.0.0.1 and a free port, whose
// registry has Relay, Expect, Numbered and Summary, as JSON. Create's
// errors.
absl::StatusOr<std::unique_ptr<actor::ActorSystem>> MakeNodeSystem(
    const std::string& name, const std::string& extra_config = "");

}  // namespace cairn::remote::testing

#endif  // CAIRN_REMOTE_TESTING_NODE_MESSAGES_H_
