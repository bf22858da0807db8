#ifndef CAIRN_HOCON_TESTING_CONFORMANCE_DIR_H_
#define CAIRN_HOCON_TESTING_CONFORMANCE_DIR_H_

#include <string>

namespace cairn::hocon::testing {

// The shared conformance data (`.../conformance`, holding hocon/akka and
// hocon/lightbend), which lives beside the checkout rather than in it.
// Looked for, in order: $CAIRN_CONFORMANCE_DIR; `../shared/conformance`
// next to the real workspace (found by following a runfile of the test, or
// BUILD_WORKSPACE_DIRECTORY under `bazel run`). Never at a fixed path, so
// a clone anywhere finds the data next to it. Empty when none exists.
std::string ConformanceDir();

// Where ConformanceDir() looked, for the message of a test that skips
// without the data.
std::string ConformanceDirSearched();

}  // namespace cairn::hocon::testing

#endif  // CAIRN_HOCON_TESTING_CONFORMANCE_DIR_H_
