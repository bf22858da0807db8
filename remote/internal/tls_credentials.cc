#include "remote/internal/tls_credentials.h"

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "base/string_view.h"

namespace cairn::remote::internal {
namespace {

// Certificates and keys are small; a larger file is not one.
constexpr std::streamoff kMaxPemBytes = 1 << 20;

absl::StatusOr<std::string> ReadPem(std::string_view key,
                                    const std::string& path) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        base::StrCat("akka.remote.artery.", key, ": '", path, "' ", why));
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad("cannot be read");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxPemBytes) {
    return bad("is not a PEM file (too large)");
  }
  in.seekg(0);
  std::ostringstream text;
  text << in.rdbuf();
  std::string pem = text.str();
  if (pem.find("-----BEGIN ") == std::string::npos) {
    return bad("holds no PEM block (-----BEGIN ...)");
  }
  return pem;
}

}  // namespace

absl::StatusOr<Credentials> MakeCredentials(const RemoteSettings::Ssl& ssl) {
  if (!ssl.enabled) {
    return Credentials{grpc::InsecureServerCredentials(),
                       grpc::InsecureChannelCredentials()};
  }
  absl::StatusOr<std::string> certificate =
      ReadPem("ssl.certificate", ssl.certificate);
  if (!certificate.ok()) return certificate.status();
  absl::StatusOr<std::string> private_key =
      ReadPem("ssl.private-key", ssl.private_key);
  if (!private_key.ok()) return private_key.status();
  absl::StatusOr<std::string> ca = ReadPem("ssl.ca", ssl.ca);
  if (!ca.ok()) return ca.status();

  grpc::SslServerCredentialsOptions server(
      ssl.require_mutual_authentication
          ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
          : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  server.pem_root_certs = *ca;
  server.pem_key_cert_pairs.push_back({*private_key, *certificate});

  grpc::SslCredentialsOptions channel;
  channel.pem_root_certs = *ca;
  channel.pem_private_key = *private_key;
  channel.pem_cert_chain = *certificate;
  return Credentials{grpc::SslServerCredentials(server),
                     grpc::SslCredentials(channel)};
}

}  // namespace cairn::remote::internal
