#!/usr/bin/env bash
# TensorBoard's own reader as the referee of bertpt's event files (src/io/tfevents.h): files written
# by tfevents_fixture_writer (tests/io/tfevents_fixture_writer.cc) read back by the tensorboard
# package (tests/peer/tensorboard_reader.py selftest).
# Usage: tensorboard_reader.sh WRITER_BIN SOURCE_DIR. Exit 77 (CTest: skipped) when the peer
# environment is missing (scripts/setup-test-peers installs tensorboard) — except in CI, where that fails.
set -euo pipefail
writer=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python tensorboard numpy
exec "$py" "$src/tests/peer/tensorboard_reader.py" selftest "$writer"
