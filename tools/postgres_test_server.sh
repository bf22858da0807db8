#!/usr/bin/env bash
# A throwaway PostgreSQL server for cairn's tests, from Debian's postgresql
# package (docs/POSTGRESQL.md, "Testing against PostgreSQL").
#
#   tools/postgres_test_server.sh start [--durable] [--port PORT] [DIR]
#       Makes a cluster in DIR (default: a new directory in /tmp; DIR must
#       be empty or absent), listening on 127.0.0.1 at a free port (or PORT),
#       its unix socket and server.log in DIR. Prints one line on stdout, the
#       connection string (postgresql://postgres@127.0.0.1:PORT/postgres);
#       everything else goes to stderr. Trust authentication: the server is
#       for tests on this machine only. Test settings unless --durable:
#       fsync, synchronous_commit and full_page_writes off (tests kill
#       clients, never the server); --durable keeps PostgreSQL's defaults
#       (for benchmarks). On failure nothing of the cluster is left behind.
#   tools/postgres_test_server.sh stop [DIR]
#       Stops the server in DIR (default: the last one started) and removes
#       DIR.
#
# As root, the server runs as the `postgres` user (PostgreSQL refuses root),
# so DIR and its parents must be reachable by that user: /tmp is, /root is
# not.
set -euo pipefail

prog="postgres_test_server.sh"
die() {
  echo "$prog: $*" >&2
  exit 1
}
usage() {
  echo "usage: $prog start [--durable] [--port PORT] [DIR]" >&2
  echo "       $prog stop [DIR]" >&2
  exit 2
}

# Where `stop` without DIR finds the last cluster started (one per user).
last_record="${TMPDIR:-/tmp}/cairn-postgres-test-server.$(id -u).last"
# Marks a directory as one of ours, so `stop` never removes anything else.
marker=".cairn-postgres-test-server"

# The newest installed PostgreSQL's server binaries (Debian keeps them out of
# PATH, in /usr/lib/postgresql/VERSION/bin).
find_bin() {
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null |
    sort -V | tail -n 1)"
  if [ -z "$dir" ] || [ ! -x "$dir/initdb" ] || [ ! -x "$dir/pg_ctl" ] ||
    [ ! -x "$dir/pg_isready" ]; then
    die "no PostgreSQL server found in /usr/lib/postgresql/*/bin; install Debian's postgresql: apt-get install postgresql (tools/setup.sh does)"
  fi
  echo "$dir"
}

# Runs a command as the cluster's owner: `postgres` when we are root,
# ourselves otherwise. From / so that an unreachable working directory
# (/root) does not matter.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

# Whether something accepts connections on 127.0.0.1:$1.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port from the dynamic range nothing listens on now (the server's own
# bind is the real test: start retries on a race).
pick_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((49152 + (RANDOM * 32768 + RANDOM) % 16384))
    if ! port_in_use "$port"; then
      echo "$port"
      return 0
    fi
  done
  die "no free port on 127.0.0.1 after 50 tries"
}

# What start made, for its EXIT trap to remove on failure (globals: the trap
# runs after start's locals are gone).
made_dir=0
dir=""
cleanup_dir() {
  if [ "$made_dir" -eq 1 ]; then
    rm -rf "$dir"
  else
    find "$dir" -mindepth 1 -delete
  fi
}

start() {
  local durable=0 port=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --durable) durable=1 ;;
      --port)
        [ $# -ge 2 ] || usage
        port="$2"
        shift
        ;;
      --port=*) port="${1#--port=}" ;;
      -*) usage ;;
      *)
        [ -z "$dir" ] || usage
        dir="$1"
        ;;
    esac
    shift
  done
  if [ -n "$port" ]; then
    case "$port" in
      '' | *[!0-9]*) die "--port needs a number, not '$port'" ;;
    esac
    if [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
      die "--port $port is not a TCP port"
    fi
    port_in_use "$port" && die "port $port on 127.0.0.1 is busy (something accepts connections there); pick another or leave out --port"
  fi

  local bin
  bin="$(find_bin)"
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    die "running as root, but there is no postgres user to run the server as (Debian's postgresql package makes it)"
  fi

  # On failure, remove what we made: the directory itself if we made it,
  # else only what we put into it.
  if [ -z "$dir" ]; then
    # /tmp, not $TMPDIR: the postgres user must reach it (a test's TMPDIR
    # is under root's home).
    dir="$(mktemp -d /tmp/cairn-postgres.XXXXXX)"
    made_dir=1
  elif [ -e "$dir" ]; then
    [ -d "$dir" ] || die "$dir is not a directory"
    [ -z "$(ls -A "$dir")" ] || die "$dir is not empty; give an empty or new directory"
  else
    mkdir -p "$dir"
    made_dir=1
  fi
  dir="$(cd "$dir" && pwd)"
  trap 'cleanup_dir' EXIT

  # A unix socket path has at most 107 bytes.
  [ ${#dir} -le 80 ] || die "$dir is too long for the server's unix socket; use a shorter path"
  chmod 700 "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$dir" 2>/dev/null ||
      die "cannot give $dir to the postgres user (chown failed: a sandbox that maps no other user, such as Bazel's, cannot run the server as root)"
    as_owner test -w "$dir" ||
      die "$dir is not reachable by the postgres user (the server runs as postgres when started by root); use a directory under /tmp"
  fi
  local data="$dir/data" log="$dir/server.log"

  echo "$prog: initdb $data ($bin)" >&2
  if ! as_owner "$bin/initdb" --pgdata="$data" --username=postgres --auth=trust \
    --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
    tail -n 20 "$dir/initdb.log" >&2
    die "initdb failed (its output is above)"
  fi
  # Local connections only, trusted (initdb's --auth=trust writes local and
  # 127.0.0.1/::1 lines); enough connections for parallel test shards.
  {
    echo "# cairn test server ($prog)"
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$dir'"
    echo "max_connections = 200"
    if [ "$durable" -eq 0 ]; then
      echo "fsync = off"
      echo "synchronous_commit = off"
      echo "full_page_writes = off"
    fi
  } >>"$data/postgresql.conf"

  # Another process may take a picked port between the check and the bind:
  # then pick another and try again.
  local fixed_port="$port" started=0
  for _ in 1 2 3 4 5; do
    [ -n "$fixed_port" ] || port="$(pick_port)"
    as_owner rm -f "$log"
    as_owner touch "$log"
    if as_owner "$bin/pg_ctl" --pgdata="$data" --log="$log" --options="-p $port" \
      --wait --timeout=60 --silent start >/dev/null 2>"$dir/pg_ctl.err"; then
      started=1
      break
    fi
    if grep -q 'could not bind IPv4 address.*Address already in use' "$log"; then
      [ -z "$fixed_port" ] || die "port $port on 127.0.0.1 is busy (the server could not bind it)"
      echo "$prog: port $port was taken meanwhile; trying another" >&2
      continue
    fi
    break
  done
  if [ "$started" -eq 0 ]; then
    cat "$dir/pg_ctl.err" >&2
    echo "--- the end of server.log:" >&2
    tail -n 20 "$log" >&2
    as_owner "$bin/pg_ctl" --pgdata="$data" stop -m immediate >/dev/null 2>&1 || true
    die "the server did not start (on 127.0.0.1:$port)"
  fi

  # pg_ctl --wait saw the postmaster up; wait until it takes connections on
  # the address the tests use.
  local deadline=$((SECONDS + 30))
  until "$bin/pg_isready" --quiet --host=127.0.0.1 --port="$port" --username=postgres \
    --dbname=postgres --timeout=2; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "--- the end of server.log:" >&2
      tail -n 20 "$log" >&2
      as_owner "$bin/pg_ctl" --pgdata="$data" stop -m immediate >/dev/null 2>&1 || true
      die "the server started but does not accept connections on 127.0.0.1:$port after 30 s"
    fi
    sleep 0.2
  done

  local url="postgresql://postgres@127.0.0.1:$port/postgres"
  printf '%s\n' "$url" >"$dir/$marker"
  printf '%s\n' "$dir" >"$last_record"
  trap - EXIT
  echo "$prog: PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') in $dir, on 127.0.0.1:$port$([ "$durable" -eq 1 ] && echo ' (durable)'); stop it with: $0 stop $dir" >&2
  echo "$url"
}

stop() {
  [ $# -le 1 ] || usage
  local dir="${1:-}"
  if [ -z "$dir" ]; then
    [ -f "$last_record" ] || die "no DIR given and no server recorded as started; give its DIR"
    dir="$(cat "$last_record")"
  fi
  [ -d "$dir" ] || die "$dir is not a directory"
  dir="$(cd "$dir" && pwd)"
  [ -f "$dir/$marker" ] || die "$dir was not made by $prog start; not touching it"
  local bin
  bin="$(find_bin)"
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" --pgdata="$dir/data" --mode=fast --wait --timeout=60 --silent stop ||
      die "pg_ctl stop failed for $dir/data (see $dir/server.log)"
  fi
  rm -rf "$dir"
  if [ -f "$last_record" ] && [ "$(cat "$last_record")" = "$dir" ]; then
    rm -f "$last_record"
  fi
  echo "$prog: stopped and removed $dir" >&2
}

[ $# -ge 1 ] || usage
command="$1"
shift
case "$command" in
  start) start "$@" ;;
  stop) stop "$@" ;;
  *) usage ;;
esac
