#ifndef CAIRN_HOCON_INTERNAL_RESOLVER_H_
#define CAIRN_HOCON_INTERNAL_RESOLVER_H_

#include "absl/status/statusor.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

// Replaces every substitution in `root` (an object), joins every
// concatenation and finishes every merge stack.
//
// A substitution names a path from the root and sees its final value
// ("looks forward"), except that a field referring to itself
// (`a = ${a} [x]`, `a += x`) sees the value it overrides, and what
// another field resolves to as that self-reference reads it is what
// every reader gets (`a = 1, b = ${a}foo, a = ${b}`: b is "1foo"), as in
// the reference; fields with several values are resolved first, so this
// does not depend on the names of the keys. Among those, the first by key
// decides for the others: in `a = 1, b = {c = 5}, b = ${a}, a = ${b}`, a
// sees 1 below itself, so b is 1, and so is a (as the reference, which
// resolves `a` first there too, gives). An included
// file's substitutions try the path below the include point first. When
// the path is not set, it is looked up in `environment` (if not null: the
// environment variables as an object, see EnvironmentObject), so
// `${HOME}` names a variable and `${a.b}` the variable `a.b`; an optional
// `${?x}` with nothing behind it removes its field or list element.
//
// Errors are InvalidArgument naming the substitution and where it was
// written: undefined, part of a cycle, or a concatenation of
// incompatible values.
absl::StatusOr<ValuePtr> Resolve(const ValuePtr& root,
                                 const ValuePtr& environment);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_RESOLVER_H_
