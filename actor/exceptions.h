#ifndef CAIRN_ACTOR_EXCEPTIONS_H_
#define CAIRN_ACTOR_EXCEPTIONS_H_

#include <exception>
#include <stdexcept>
#include <string>

namespace cairn::actor {

// Inside actors, failures are exceptions: supervision maps their types to
// directives. These are the runtime's own.

// A constructor or PreStart threw. `cause()` is what it threw. The default
// strategy stops the actor.
class ActorInitializationException : public std::runtime_error {
 public:
  ActorInitializationException(const std::string& what,
                               std::exception_ptr cause)
      : std::runtime_error(what), cause_(std::move(cause)) {}
  const std::exception_ptr& cause() const { return cause_; }

 private:
  std::exception_ptr cause_;
};

// Thrown by an actor that received Kill. The default strategy stops it.
class ActorKilledException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by an actor that did not handle a Terminated it watched for.
class DeathPactException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ActorOf with a bad or taken name.
class InvalidActorNameException : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Stash() beyond the configured stash-capacity.
class StashOverflowException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An Ask (or GracefulStop) whose answer did not come in time.
class AskTimeoutException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A Props that names a dispatcher or mailbox the configuration does not
// define (or defines badly).
class ConfigurationException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "Type: what()" of an exception, for logs and error messages.
std::string DescribeException(const std::exception_ptr& e);

// Misuse of the actor API that is a bug in the caller (e.g. Stash() outside
// message processing).
class IllegalActorStateException : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_EXCEPTIONS_H_
