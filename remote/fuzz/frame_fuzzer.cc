// libFuzzer entry point for what a peer's bytes go through on arrival: a
// Frame parsed from the wire, then, as an inbound stream does, each
// envelope's message decoded, its paths parsed and resolved, each system
// message's paths too, and the handshake's address.
//
// Any input must end in a value or an error status, never a crash, hang
// or sanitizer report. Built with clang by tools/fuzz_remote.sh; the same
// function runs under gtest in frame_fuzzer_test.cc.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "actor/actor_path.h"
#include "actor/actor_system.h"
#include "actor/address.h"
#include "remote/internal/message_codec.h"
#include "remote/internal/wire.pb.h"

namespace {

using cairn::actor::ActorSystem;
using cairn::remote::internal::MessageCodec;
namespace wire = cairn::remote::wire;

// One system for the whole run: made once, never destroyed (inputs do not
// start actors; the refs they resolve are released after each).
struct Target {
  Target() {
    system = ActorSystem::Create("fuzz").value();
    codec = std::make_unique<MessageCodec>(system.get(), nullptr);
  }
  std::unique_ptr<ActorSystem> system;
  std::unique_ptr<MessageCodec> codec;
};

Target& TheTarget() {
  static Target* target = new Target();
  return *target;
}

void ResolvePath(const std::string& text) {
  absl::StatusOr<cairn::actor::ActorPath> path =
      cairn::actor::ActorPath::Parse(text);
  if (path.ok()) (void)TheTarget().system->ResolveActorRef(*path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wire::Frame frame;
  if (!frame.ParseFromArray(data, static_cast<int>(size))) return 0;
  Target& target = TheTarget();
  if (frame.has_handshake()) {
    (void)cairn::actor::Address::Parse(frame.handshake().from_address());
  }
  for (const wire::Envelope& e : frame.envelopes()) {
    (void)target.codec->Decode(e.message());
    ResolvePath(e.recipient());
    ResolvePath(e.sender());
  }
  for (const wire::SystemMessage& m : frame.system_messages()) {
    const wire::WatchMessage& w = m.has_watch() ? m.watch() : m.unwatch();
    ResolvePath(w.watchee());
    ResolvePath(w.watcher());
    ResolvePath(m.death_watch_notification().subject());
    ResolvePath(m.death_watch_notification().watcher());
  }
  return 0;
}
