// Runs the frame fuzzer's entry point without libFuzzer, on valid frames
// and on a fixed number of seeded random mutations of them (a failure
// reproduces), under gcc and every sanitizer config.
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "remote/internal/wire.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace cairn::remote {
namespace {

int Fuzz(const std::string& input) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()),
                                input.size());
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {"", std::string(64, '\xff')};
  wire::Frame frame;
  frame.mutable_handshake()->set_protocol_version(1);
  frame.mutable_handshake()->set_from_address("akka://peer@127.0.0.1:2552");
  frame.mutable_handshake()->set_from_uid(7);
  // The runtime's messages as the codec writes them (serializer 4): an
  // Identify whose id is a string, an ActorIdentity naming a ref, a
  // PoisonPill, and a string.
  wire::IdentifyMessage identify;
  identify.mutable_message_id()->set_serializer_id(1);
  identify.mutable_message_id()->set_bytes("id");
  wire::ActorIdentityMessage identity;
  *identity.mutable_message_id() = identify.message_id();
  identity.set_subject("akka://peer@127.0.0.1:2552/user/b#3");
  const std::pair<const char*, std::string> messages[] = {
      {"Identify", identify.SerializeAsString()},
      {"ActorIdentity", identity.SerializeAsString()},
      {"PoisonPill", ""},
      {"", "text"}};
  for (const auto& [manifest, bytes] : messages) {
    wire::Envelope* e = frame.add_envelopes();
    e->set_recipient("akka://fuzz/user/a#12");
    e->set_sender("akka://peer@127.0.0.1:2552/user/b#3");
    e->mutable_message()->set_serializer_id(*manifest != '\0' ? 4 : 1);
    e->mutable_message()->set_manifest(manifest);
    e->mutable_message()->set_bytes(bytes);
    e->set_selection(*manifest == 'I');
    if (e->selection()) e->add_elements("*");
  }
  wire::SystemMessage* m = frame.add_system_messages();
  m->set_seq(1);
  m->mutable_watch()->set_watchee("akka://fuzz/user/a");
  m->mutable_watch()->set_watcher("akka://peer@127.0.0.1:2552/user/w#1");
  seeds.push_back(frame.SerializeAsString());
  frame.set_ack(9);
  frame.set_heartbeat(true);
  seeds.push_back(frame.SerializeAsString());
  return seeds;
}

TEST(FrameFuzzerTest, SeedsAndTheirMutationsNeverCrash) {
  std::mt19937 random(20261129);
  for (const std::string& seed : Seeds()) {
    EXPECT_EQ(Fuzz(seed), 0);
    for (int round = 0; round < 3000; ++round) {
      std::string bytes = seed;
      const int edits = 1 + static_cast<int>(random() % 4);
      for (int i = 0; i < edits && !bytes.empty(); ++i) {
        const size_t at = random() % bytes.size();
        switch (random() % 3) {
          case 0:
            bytes[at] = static_cast<char>(random());
            break;
          case 1:
            bytes.insert(at, 1, static_cast<char>(random()));
            break;
          default:
            bytes.erase(at, 1);
        }
      }
      EXPECT_EQ(Fuzz(bytes), 0);
    }
  }
}

}  // namespace
}  // namespace cairn::remote
