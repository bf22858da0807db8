#include "remote/testing/throwaway_ca.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace cairn::remote::testing {

std::string MakeThrowawayCertificates() {
  static std::atomic<int> made{0};
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tls-",
                                       ::getpid(), "-", made++);
  std::ofstream(dir + ".ext") << "subjectAltName=IP:127.0.0.1\n"
                              << "extendedKeyUsage=serverAuth,clientAuth\n";
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1";
  const std::string script = absl::StrCat(
      "set -e; mkdir -p ", dir, "; cd ", dir, "; ", "openssl req -x509 ", ec,
      " -nodes -keyout ca.key -out ca.pem -days 1 ",
      "-subj '/CN=cairn test CA'; ", "openssl req ", ec,
      " -nodes -keyout node.key -out node.csr ", "-subj '/CN=127.0.0.1'; ",
      "openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key ",
      "-CAcreateserial -out node.pem -days 1 -extfile ", dir, ".ext; ",
      // Another CA, which nobody trusts.
      "openssl req -x509 ", ec, " -nodes -keyout rogue.key -out rogue.pem ",
      "-days 1 -subj '/CN=127.0.0.1'");
  const std::string command =
      absl::StrCat("bash -c \"", script, "\" > ", dir, ".log 2>&1");
  if (std::system(command.c_str()) != 0) return "";
  return dir;
}

std::string TlsConfig(const std::string& dir, bool mutual) {
  return absl::StrCat(
      "akka.remote.artery.ssl {\n  enabled = on\n", "  certificate = \"", dir,
      "/node.pem\"\n", "  private-key = \"", dir, "/node.key\"\n", "  ca = \"",
      dir, "/ca.pem\"\n",
      "  require-mutual-authentication = ", mutual ? "on" : "off", "\n}\n");
}

}  // namespace cairn::remote::testing
