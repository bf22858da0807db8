#ifndef CAIRN_REMOTE_REMOTE_SETTINGS_H_
#define CAIRN_REMOTE_REMOTE_SETTINGS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "hocon/config.h"
#include "remote/internal/phi_accrual_failure_detector.h"

namespace cairn::remote {

// `akka.remote.artery` and `akka.remote.watch-failure-detector`, read once
// when the transport is made; reference.conf documents each key.
struct RemoteSettings {
  std::string canonical_hostname = "127.0.0.1";
  int canonical_port = 25520;  // 0: the bound port
  std::string bind_hostname;   // the canonical one when empty
  int bind_port = -1;          // the canonical one when negative
  bool log_sent_messages = false;
  bool log_received_messages = false;
  int64_t maximum_frame_size = 256 * 1024;
  int outbound_message_queue_size = 3072;
  absl::Duration outbound_restart_backoff = absl::Seconds(1);
  absl::Duration handshake_timeout = absl::Seconds(20);
  absl::Duration shutdown_flush_timeout = absl::Seconds(1);
  absl::Duration system_message_resend_interval = absl::Seconds(1);
  absl::Duration give_up_system_message_after = absl::Hours(6);
  int system_message_buffer_size = 20000;
  // akka.remote.watch-failure-detector
  internal::PhiAccrualSettings failure_detector;
  absl::Duration heartbeat_interval = absl::Seconds(1);
  absl::Duration expected_response_after = absl::Seconds(1);

  // akka.remote.artery.ssl: TLS on every stream, both ways. The files are
  // PEM; `ca` holds the certificates a peer's must be signed by.
  struct Ssl {
    bool enabled = false;
    std::string certificate;  // this system's chain
    std::string private_key;
    std::string ca;
    // Peers connecting here must show a certificate the CA signed.
    bool require_mutual_authentication = true;
  };
  Ssl ssl;

  // InvalidArgument naming the key for a missing or out-of-range value.
  static absl::StatusOr<RemoteSettings> FromConfig(const hocon::Config& config);
};

}  // namespace cairn::remote

#endif  // CAIRN_REMOTE_REMOTE_SETTINGS_H_
