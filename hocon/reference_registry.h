#ifndef CAIRN_HOCON_REFERENCE_REGISTRY_H_
#define CAIRN_HOCON_REFERENCE_REGISTRY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cairn::hocon {

// Each module ships its defaults as a reference.conf, like Akka's jars do;
// the `reference_conf` Bazel macro (reference_conf.bzl) embeds the file and
// registers it from a static initializer. Config::Load merges them all
// under the application's config.
//
// Thread safety: registration happens before main; reading after.
bool RegisterReferenceConf(std::string_view module, std::string_view text);

// (module, text) pairs in module-name order.
std::vector<std::pair<std::string, std::string>> RegisteredReferenceConfs();

}  // namespace cairn::hocon

#endif  // CAIRN_HOCON_REFERENCE_REGISTRY_H_
