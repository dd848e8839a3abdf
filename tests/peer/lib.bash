# Sourced by the peer scripts (tests/peer/*.sh) once `src` (the source tree) is set: the peers' Python,
# and the rule that a missing peer skips the test (exit 77) — except in CI (CI=true), where it fails it.
py=${BERTPT_PEER_PYTHON:-$src/.venv/bin/python}

# missing MESSAGE: skip the test (77), or fail it (1) in CI.
missing() {
  if [[ ${CI:-} == true ]]; then
    echo "$1: run scripts/setup-test-peers / provide the corpora" >&2
    exit 1
  fi
  echo "skipped: $1" >&2
  exit 77
}

# require_python MODULE...: $py imports every module, else missing.
require_python() {
  "$py" -c "import $(IFS=,; echo "$*")" 2>/dev/null || missing "no $* in $py (scripts/setup-test-peers installs it)"
}
