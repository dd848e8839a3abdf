#!/usr/bin/env bash
# A directory input with symlink loops (it used to be read 41 times over, silently): every file is
# read once, by device and inode, and each loop is one warning line naming it.
source "$(dirname "$0")/lib.bash"

mkdir -p "$T/corpus/sub/deeper"
make_corpus "$T/corpus/a.txt" 10
make_corpus "$T/corpus/sub/b.txt" 20
make_corpus "$T/corpus/sub/deeper/c.txt" 30
ln -s .. "$T/corpus/sub/up"          # corpus/sub/up -> corpus
ln -s ../.. "$T/corpus/sub/deeper/top"  # corpus/sub/deeper/top -> corpus
ln -s sub "$T/corpus/alias"          # the same directory twice: read once, not a loop

run "$BERTPT" corpus stats --json -i "$T/corpus"
[[ $RC == 0 ]] || fail "corpus stats failed: $ERR"
docs=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["documents"])')
files=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["files"])')
[[ $docs == 60 && $files == 3 ]] || fail "read $docs documents from $files files, expected 60 from 3"
warnings=$(printf '%s\n' "$ERR" | grep -c '^bertpt: warning: .* is a symlink loop back to ' || true)
[[ $warnings == 2 ]] || fail "expected 2 loop warnings, got: $ERR"
[[ $ERR == *"$T/corpus/alias/up is a symlink loop back to $T/corpus"* ]] || fail "the warning does not name the loop: $ERR"
pass "a directory with symlink loops is read once, each loop warned about once"

run "$BERTPT" corpus merge -q -i "$T/corpus" -o "$T/merged.jsonl"
[[ $RC == 0 ]] || fail "corpus merge failed: $ERR"
[[ $(wc -l <"$T/merged.jsonl") == 60 ]] || fail "merged $(wc -l <"$T/merged.jsonl") documents, expected 60"
pass "corpus merge reads each file once"
