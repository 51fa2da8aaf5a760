#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and the bench: `start DIR` creates one in DIR (owned by an
# unprivileged user: `nobody` when run as root), listening on a free loopback port with password authentication,
# and prints its admin URL; `stop DIR` stops it. Durability is off: nothing here outlives the run.
set -euo pipefail
cmd=${1:?usage: pg-cluster.sh start|stop DIR}
dir=${2:?usage: pg-cluster.sh start|stop DIR}

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  if command -v initdb >/dev/null 2>&1; then bin=$(dirname "$(command -v initdb)"); else
    echo "pg-cluster: PostgreSQL's server programs (initdb, pg_ctl) are not installed: apt-get install postgresql" >&2
    exit 1
  fi
fi
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }

case "$cmd" in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # The cluster's owner must reach its directory.
  d="$dir"; while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
  password=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
  printf '%s\n' "$password" > "$dir/pwfile"
  [ "$(id -u)" = 0 ] && chown -R nobody "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U sextant_admin --pwfile="$dir/pwfile" -A scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  rm -f "$dir/pwfile"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
CONF
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgres://sextant_admin:$password@127.0.0.1:$port/postgres"
  ;;
stop)
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  ;;
*)
  echo "usage: pg-cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
