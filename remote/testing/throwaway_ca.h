#ifndef CAIRN_REMOTE_TESTING_THROWAWAY_CA_H_
#define CAIRN_REMOTE_TESTING_THROWAWAY_CA_H_

// Certificates for remoting's TLS tests, made by `openssl` (tools/setup.sh
// installs it) in the test's temporary directory: nothing secret is kept
// in the tree.

#include <string>

namespace cairn::remote::testing {

// Makes, in a new directory under $TEST_TMPDIR (else /tmp), a CA (ca.pem,
// ca.key), a certificate it signed for 127.0.0.1 for both server and
// client use (node.pem, node.key), and a self-signed one nobody trusts
// (rogue.pem, rogue.key). The directory; empty if openssl failed or is not
// there (the test then skips, saying so). Each call makes a new directory.
std::string MakeThrowawayCertificates();

// `akka.remote.artery.ssl` turned on with dir's node certificate, key and
// CA, and mutual authentication as `mutual` says.
std::string TlsConfig(const std::string& dir, bool mutual = true);

}  // namespace cairn::remote::testing

#endif  // CAIRN_REMOTE_TESTING_THROWAWAY_CA_H_
