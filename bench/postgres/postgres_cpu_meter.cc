#include "bench/postgres/postgres_cpu_meter.h"

#include <dirent.h>
#include <postgresql/libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "bench/support/process_cpu.h"

namespace cairn::bench {
namespace {

// /proc/<pid>/stat's fields after the command name: state, ppid, ...
// Empty if the process is gone.
std::string StatAfterName(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  return close == std::string::npos ? "" : stat.substr(close + 1);
}

pid_t ParentOf(pid_t pid) {
  std::istringstream fields(StatAfterName(pid));
  std::string state;
  pid_t parent = 0;
  if (!(fields >> state >> parent)) return 0;
  return parent;
}

std::string CommandName(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Seconds the process ran on a CPU (its main thread's: PostgreSQL's
// processes have one), from the kernel's count in nanoseconds; nothing if
// it is gone.
std::optional<double> RuntimeSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  double nanoseconds = 0;
  if (!(in >> nanoseconds)) return std::nullopt;
  return nanoseconds / 1e9;
}

// The runtime of the postmaster and of each of its live children, by pid;
// nothing if the postmaster's cannot be read, or reads 0 (a kernel that
// keeps no such count).
std::optional<std::map<pid_t, double>> ServerRuntimes(pid_t postmaster) {
  if (postmaster == 0) return std::nullopt;
  const std::optional<double> own = RuntimeSeconds(postmaster);
  if (!own.has_value() || *own <= 0) return std::nullopt;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return std::nullopt;
  std::map<pid_t, double> runtimes;
  runtimes[postmaster] = *own;
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    if (ParentOf(static_cast<pid_t>(pid)) != postmaster) continue;
    // A child that ended meanwhile is left out.
    if (std::optional<double> runtime =
            RuntimeSeconds(static_cast<pid_t>(pid))) {
      runtimes[static_cast<pid_t>(pid)] = *runtime;
    }
  }
  closedir(proc);
  return runtimes;
}

}  // namespace

pid_t LocalPostmaster(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  pid_t postmaster = 0;
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* result = PQexec(conn, "SELECT pg_backend_pid()");
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1) {
      const pid_t backend =
          static_cast<pid_t>(std::atol(PQgetvalue(result, 0, 0)));
      const pid_t parent = ParentOf(backend);
      // Our backend, seen here: the same server, not a namesake pid.
      if (parent > 0 && CommandName(backend) == "postgres" &&
          CommandName(parent) == "postgres") {
        postmaster = parent;
      }
    }
    PQclear(result);
  }
  PQfinish(conn);
  return postmaster;
}

void CpuMeter::Start() {
  server_start_ = ServerRuntimes(postmaster_);
  process_start_ = ProcessCpuSeconds();
}

void CpuMeter::Stop() {
  process_stop_ = ProcessCpuSeconds();
  server_stop_ = ServerRuntimes(postmaster_);
}

std::optional<double> CpuMeter::server_seconds() const {
  if (!server_start_.has_value() || !server_stop_.has_value()) {
    return std::nullopt;
  }
  // Each process's time since Start (all of it if it started later). A
  // process that ended meanwhile (a connection closed before the window)
  // counts for nothing, rather than against it.
  double seconds = 0;
  for (const auto& [pid, stop] : *server_stop_) {
    auto start = server_start_->find(pid);
    // A pid used again by a new process would count less than nothing.
    seconds += std::max(
        0.0, stop - (start == server_start_->end() ? 0 : start->second));
  }
  return seconds;
}

}  // namespace cairn::bench
