#!/usr/bin/env bash
# A private PostgreSQL server for the tests and benchmarks of the PostgreSQL store:
#   tools/pg-test-server.sh start DIR   # initdb in DIR (created; must not exist or be empty),
#                                       # starts postgres on 127.0.0.1 at a free port, creates the
#                                       # database muster_test, waits until pg_isready answers,
#                                       # and prints its URL (with a random password) on stdout
#   tools/pg-test-server.sh stop DIR    # stops that server by the pid in DIR/data/postmaster.pid
#                                       # (never by name) and waits until it is gone
# PostgreSQL refuses to run as root: as root, the server runs as the user `postgres` (Debian's
# package creates it; `nobody` otherwise), which is given DIR. Loopback only; its Unix socket is in
# DIR/sock. tools/test.sh runs the unit tests with one (MUSTER_TEST_PG_URL).
set -euo pipefail
cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

pgbin=""
for d in /usr/lib/postgresql/15/bin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [[ -x "$d/postgres" ]]; then pgbin=$d; break; fi
done
if [[ -z "$pgbin" ]]; then
  echo "$0: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql-15; tools/deps.sh does)" >&2
  exit 1
fi

# As root, run the server's programs as an unprivileged user.
as_owner=()
owner=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
  owner=postgres
  id -u postgres >/dev/null 2>&1 || owner=nobody
  as_owner=(runuser -u "$owner" --)
fi

stop() {
  local pidfile="$dir/data/postmaster.pid"
  [[ -f "$pidfile" ]] || return 0
  local pid
  pid=$(head -n 1 "$pidfile")
  [[ "$pid" =~ ^[0-9]+$ ]] || { echo "$0: $pidfile holds no pid" >&2; return 1; }
  # Fast shutdown: SIGINT to the postmaster, which ends its children and removes the pid file.
  kill -INT "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "$0: postgres (pid $pid) still running after 30 s; sending SIGQUIT" >&2
  kill -QUIT "$pid" 2>/dev/null || true
}

case "$cmd" in
  stop)
    stop
    ;;
  start)
    if [[ -e "$dir" && -n "$(ls -A "$dir")" ]]; then
      echo "$0: $dir is not empty" >&2
      exit 1
    fi
    mkdir -p "$dir/sock"
    chmod 0700 "$dir"
    password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    printf '%s\n' "$password" >"$dir/pwfile"
    chmod 0600 "$dir/pwfile"
    if [[ $(id -u) -eq 0 ]]; then chown -R "$owner" "$dir"; fi
    # Password authentication even on loopback: other users of this machine cannot connect.
    if ! "${as_owner[@]}" "$pgbin/initdb" -D "$dir/data" -U muster --pwfile="$dir/pwfile" \
         --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
      cat "$dir/initdb.log" >&2
      echo "$0: initdb failed" >&2
      exit 1
    fi
    rm -f "$dir/pwfile"
    started=""
    for _ in 1 2 3 4 5; do
      port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
      # fsync stays on: a COMMIT is durable when it returns, as in production.
      if "${as_owner[@]}" "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
           -o "-h 127.0.0.1 -p $port -k $dir/sock -c max_connections=60 -c shared_buffers=32MB" start >/dev/null; then
        started=1
        break
      fi
      echo "$0: postgres did not start on port $port; trying another" >&2
    done
    if [[ -z "$started" ]]; then
      tail -n 20 "$dir/server.log" >&2 || true
      echo "$0: cannot start postgres" >&2
      exit 1
    fi
    ready=""
    for _ in $(seq 1 300); do
      if "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port"; then ready=1; break; fi
      sleep 0.1
    done
    if [[ -z "$ready" ]]; then
      stop
      echo "$0: postgres on port $port never became ready" >&2
      exit 1
    fi
    if ! PGPASSWORD=$password "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U muster muster_test; then
      stop
      echo "$0: cannot create the database muster_test" >&2
      exit 1
    fi
    echo "postgresql://muster:$password@127.0.0.1:$port/muster_test"
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
