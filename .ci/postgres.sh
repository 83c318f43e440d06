#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on loopback for the tests, from Debian's packages.
# Prints the SQLAlchemy URL of its database on stdout. Usage: eval "$(.ci/postgres.sh DIR)"
set -euo pipefail
dir="$1"
port="${TABLEBASE_PG_PORT:-55432}"
if ! command -v initdb > /dev/null && [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
    apt-get install -y -q postgresql > /dev/null 2>&1 || { echo "echo 'no PostgreSQL: its tests will skip' >&2"; exit 0; }
fi
bin="$(dirname "$(readlink -f "$(command -v initdb || echo /usr/lib/postgresql/15/bin/initdb)")")"
run=()
if [ "$(id -u)" = 0 ]; then  # PostgreSQL refuses to run as root
    mkdir -p "$dir" && chown postgres "$dir"
    run=(runuser -u postgres --)
fi
"${run[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres > /dev/null
"${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -o "-c listen_addresses=127.0.0.1 -p $port -k $dir" -w start > /dev/null
"${run[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres tablebase
echo "export TABLEBASE_TEST_POSTGRES=postgresql+psycopg://postgres@127.0.0.1:$port/tablebase"
echo "trap '${run[*]} $bin/pg_ctl -D $dir/data -m immediate stop > /dev/null' EXIT"
