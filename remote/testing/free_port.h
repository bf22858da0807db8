#ifndef CAIRN_REMOTE_TESTING_FREE_PORT_H_
#define CAIRN_REMOTE_TESTING_FREE_PORT_H_

namespace cairn::remote::testing {

// A TCP port of 127.0.0.1 free now (the kernel's pick), for a test that
// needs to know a system's port before it starts (to start one again at
// the same address, or to tell a process where to listen). Another
// process may take it meanwhile: rare, and the test then fails to bind.
// -1 if no socket could be made.
int FreePort();

}  // namespace cairn::remote::testing

#endif  // CAIRN_REMOTE_TESTING_FREE_PORT_H_
