#include "remote/remote_settings.h"

#include <string_view>
#include <utility>

#include "base/string_view.h"

namespace cairn::remote {
namespace {

constexpr std::string_view kBlock = "akka.remote.artery.";

absl::Status Invalid(std::string_view key, std::string_view why) {
  return absl::InvalidArgumentError(base::StrCat(kBlock, key, ": ", why));
}

// Config's own errors name the path and where it was set.
absl::Status Bad(const absl::Status& status) {
  return absl::InvalidArgumentError(std::string(status.message()));
}

// A port from config: 0..65535; "" (bind) gives `fallback`.
absl::StatusOr<int> Port(const hocon::Config& config, std::string_view key,
                         bool empty_allowed) {
  const std::string path = base::StrCat(kBlock, key);
  if (empty_allowed) {
    absl::StatusOr<std::string> text = config.GetString(path);
    if (text.ok() && text->empty()) return -1;
  }
  absl::StatusOr<int> port = config.GetInt(path);
  if (!port.ok()) return Bad(port.status());
  if (*port < 0 || *port > 65535) {
    return Invalid(key, base::StrCat(*port, " is not a port (0 to 65535)"));
  }
  return *port;
}

absl::StatusOr<absl::Duration> Positive(const hocon::Config& config,
                                        std::string_view key) {
  absl::StatusOr<absl::Duration> d =
      config.GetDuration(base::StrCat(kBlock, key));
  if (!d.ok()) return Bad(d.status());
  if (*d <= absl::ZeroDuration()) return Invalid(key, "must be positive");
  return *d;
}

}  // namespace

absl::StatusOr<RemoteSettings> RemoteSettings::FromConfig(
    const hocon::Config& config) {
  RemoteSettings s;
  auto string = [&](std::string_view key, std::string* out) -> absl::Status {
    absl::StatusOr<std::string> v = config.GetString(base::StrCat(kBlock, key));
    if (!v.ok()) return Bad(v.status());
    *out = *std::move(v);
    return absl::OkStatus();
  };
  auto boolean = [&](std::string_view key, bool* out) -> absl::Status {
    absl::StatusOr<bool> v = config.GetBool(base::StrCat(kBlock, key));
    if (!v.ok()) return Bad(v.status());
    *out = *v;
    return absl::OkStatus();
  };
  if (absl::Status st = string("canonical.hostname", &s.canonical_hostname);
      !st.ok()) {
    return st;
  }
  if (s.canonical_hostname.empty()) {
    return Invalid("canonical.hostname", "is empty");
  }
  absl::StatusOr<int> port = Port(config, "canonical.port", false);
  if (!port.ok()) return port.status();
  s.canonical_port = *port;
  if (absl::Status st = string("bind.hostname", &s.bind_hostname); !st.ok()) {
    return st;
  }
  port = Port(config, "bind.port", true);
  if (!port.ok()) return port.status();
  s.bind_port = *port;
  if (absl::Status st = boolean("log-sent-messages", &s.log_sent_messages);
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          boolean("log-received-messages", &s.log_received_messages);
      !st.ok()) {
    return st;
  }
  absl::StatusOr<int64_t> frame =
      config.GetBytes(base::StrCat(kBlock, "advanced.maximum-frame-size"));
  if (!frame.ok()) {
    return Bad(frame.status());
  }
  // gRPC's limits are ints; 32 KiB below is too small for any path.
  if (*frame < 32 * 1024 || *frame > (int64_t{1} << 30)) {
    return Invalid(
        "advanced.maximum-frame-size",
        base::StrCat(*frame, " bytes is not between 32 KiB and 1 GiB"));
  }
  s.maximum_frame_size = *frame;
  absl::StatusOr<int> queue = config.GetInt(
      base::StrCat(kBlock, "advanced.outbound-message-queue-size"));
  if (!queue.ok()) {
    return Bad(queue.status());
  }
  if (*queue < 1) {
    return Invalid("advanced.outbound-message-queue-size",
                   "must be at least 1");
  }
  s.outbound_message_queue_size = *queue;
  absl::StatusOr<absl::Duration> d =
      Positive(config, "advanced.outbound-restart-backoff");
  if (!d.ok()) return d.status();
  s.outbound_restart_backoff = *d;
  d = Positive(config, "advanced.handshake-timeout");
  if (!d.ok()) return d.status();
  s.handshake_timeout = *d;
  d = Positive(config, "advanced.shutdown-flush-timeout");
  if (!d.ok()) return d.status();
  s.shutdown_flush_timeout = *d;
  d = Positive(config, "advanced.system-message-resend-interval");
  if (!d.ok()) return d.status();
  s.system_message_resend_interval = *d;
  d = Positive(config, "advanced.give-up-system-message-after");
  if (!d.ok()) return d.status();
  s.give_up_system_message_after = *d;
  absl::StatusOr<int> buffer = config.GetInt(
      base::StrCat(kBlock, "advanced.system-message-buffer-size"));
  if (!buffer.ok()) return Bad(buffer.status());
  if (*buffer < 1) {
    return Invalid("advanced.system-message-buffer-size", "must be at least 1");
  }
  s.system_message_buffer_size = *buffer;

  if (absl::Status st = boolean("ssl.enabled", &s.ssl.enabled); !st.ok()) {
    return st;
  }
  if (absl::Status st = boolean("ssl.require-mutual-authentication",
                                &s.ssl.require_mutual_authentication);
      !st.ok()) {
    return st;
  }
  for (auto [key, out] : {std::pair{"ssl.certificate", &s.ssl.certificate},
                          std::pair{"ssl.private-key", &s.ssl.private_key},
                          std::pair{"ssl.ca", &s.ssl.ca}}) {
    if (absl::Status st = string(key, out); !st.ok()) return st;
    if (s.ssl.enabled && out->empty()) {
      return Invalid(key, "is empty, and ssl.enabled = on needs it");
    }
  }

  constexpr std::string_view kDetector = "akka.remote.watch-failure-detector";
  absl::StatusOr<internal::PhiAccrualSettings> detector =
      internal::PhiAccrualSettings::FromConfig(config, kDetector);
  if (!detector.ok()) return detector.status();
  s.failure_detector = *detector;
  s.heartbeat_interval = detector->first_heartbeat_estimate;
  absl::StatusOr<absl::Duration> expected =
      config.GetDuration(base::StrCat(kDetector, ".expected-response-after"));
  if (!expected.ok()) return Bad(expected.status());
  if (*expected <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        base::StrCat(kDetector, ".expected-response-after: must be positive"));
  }
  s.expected_response_after = *expected;
  return s;
}

}  // namespace cairn::remote
