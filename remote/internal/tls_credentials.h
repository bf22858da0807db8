#ifndef CAIRN_REMOTE_INTERNAL_TLS_CREDENTIALS_H_
#define CAIRN_REMOTE_INTERNAL_TLS_CREDENTIALS_H_

#include <grpcpp/grpcpp.h>

#include <memory>

#include "absl/status/statusor.h"
#include "remote/remote_settings.h"

namespace cairn::remote::internal {

// What the transport's server and channels secure their streams with.
struct Credentials {
  std::shared_ptr<grpc::ServerCredentials> server;
  std::shared_ptr<grpc::ChannelCredentials> channel;
};

// Plaintext when `ssl.enabled` is off; otherwise TLS from its PEM files:
// the server presents the certificate and (with
// require-mutual-authentication) asks peers for one the CA signed; a
// channel checks the peer's certificate against the CA and the host it
// dials, and presents its own. InvalidArgument naming the key and the
// file for one that cannot be read or holds no PEM.
absl::StatusOr<Credentials> MakeCredentials(const RemoteSettings::Ssl& ssl);

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_TLS_CREDENTIALS_H_
