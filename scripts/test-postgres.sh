#!/usr/bin/env bash
# The suites that run on both stores, run again on PostgreSQL, plus the PostgreSQL-only tests (test/postgres/).
# Uses the server SEXTANT_TEST_PG names (an admin URL), else starts a throwaway cluster (scripts/pg-cluster.sh) for
# the run. Without PostgreSQL's programs it fails in CI (CI or SEXTANT_REQUIRE_PG set) and is skipped elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

# The suites parametrised by helpers/store.ts: every test index they make lives on the store under test.
SUITES=(
  test/query.test.ts test/data-tools.test.ts test/data-table.test.ts test/hugr-generations.test.ts test/guide-hugr.test.ts
  test/code-estate.test.ts test/code-source.test.ts test/code-trace.test.ts test/code-uses.test.ts
  test/code-eventuate.test.ts test/code-eval-rules.test.ts test/code-build-deps.test.ts test/code-incremental.test.ts
  test/code-e2e.test.ts test/code-links-corpora.test.ts test/code-estate-repositories.test.ts test/semantic.test.ts
  test/code-stamps.test.ts
)

cluster=""
# An EXIT trap's last status becomes the script's under `set -e`: it must end in success.
cleanup() {
  if [ -n "$cluster" ]; then
    bash scripts/pg-cluster.sh stop "$cluster" || true
    rm -rf "$cluster" || true
  fi
  return 0
}
trap cleanup EXIT
if [ -z "${SEXTANT_TEST_PG:-}" ]; then
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    if [ -n "${CI:-}${SEXTANT_REQUIRE_PG:-}" ]; then
      echo "test-postgres: PostgreSQL is not installed, and this run requires it (CI / SEXTANT_REQUIRE_PG)" >&2
      exit 1
    fi
    echo "test-postgres: SKIPPED — PostgreSQL is not installed here (apt-get install postgresql), so the PostgreSQL suites did not run" >&2
    exit 0
  fi
  cluster=$(mktemp -d /tmp/sextant-pg-XXXXXX)
  SEXTANT_TEST_PG=$(bash scripts/pg-cluster.sh start "$cluster")
  export SEXTANT_TEST_PG
fi
SEXTANT_TEST_STORE=postgres node --import tsx --test --test-concurrency=2 "${SUITES[@]}" test/postgres/*.test.ts
