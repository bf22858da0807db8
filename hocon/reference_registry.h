#ifndef CAIRN_HOCON_REFERENCE_REGISTRY_H_
#define CAIRN_HOCON_REFERENCE_REGISTRY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cairn::hocon {

// Each module ships its defaults as a reference.conf, as Akka's jars do.
// The `reference_conf` Bazel macro (reference_conf.bzl) embeds the file in
// the module's library and registers it from a static initializer;
// Config::Load merges them all under the application's config, in
// module-name order (on a conflict the module whose name sorts first
// wins), and reports a reference.conf that does not parse as an error
// naming its module.
//
// Thread safety: both functions may be called from any thread, including
// from static initializers (the registry is created on first use).

// Registers (or, for a module already registered, replaces) `text`, the
// HOCON of `module`'s reference.conf. Returns true, so that it can
// initialize a static.
bool RegisterReferenceConf(std::string_view module, std::string_view text);

// (module, text) pairs in module-name order.
std::vector<std::pair<std::string, std::string>> RegisteredReferenceConfs();

}  // namespace cairn::hocon

#endif  // CAIRN_HOCON_REFERENCE_REGISTRY_H_
