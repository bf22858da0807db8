#!/usr/bin/env bash
# What to run before sending a change: formatting, the repository paths the
# docs name, the lint (tools/lint.sh), then the README's build and test
# command. CI (.ci/run) runs these and the sanitizers too.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools/setup.sh
tools/format_check.sh
tools/check_doc_paths.sh
tools/lint.sh
bazel build //...
bazel test //...
