# Sourced by the robustness cases that train (tests/robustness/training/*.sh, registered only when
# bertpt is built with LibTorch): ../lib.bash, plus a small prepared dataset and a labelled set.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.bash"

# make_dataset DIR: a bert-tiny-sized dataset (vocabulary 120, 32-token blocks, a valid split).
make_dataset() {
  [[ -f $T/corpus.txt ]] || make_corpus "$T/corpus.txt" 3000
  [[ -d $T/tok ]] || make_tokenizer "$T/tok"
  "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 --valid-fraction 0.05 --threads 1 -o "$1" ||
    fail "cannot prepare $1"
}

# "${TINY_TRAIN[@]}" ARGS...: `train` on one thread, small batches, no TensorBoard files (an array,
# not a function, so that `run` and `&` start bertpt itself). The callers add --model bert-tiny.
TINY_TRAIN=("$BERTPT" train -q --threads 1 --per-device-batch-size 8 --logging-steps 1 --report-to none)

# make_labelled FILE N: N labelled examples (JSONL), two classes told apart by their words.
make_labelled() {
  awk -v n="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      if (i % 2) print "{\"text\": \"the cat sat on a mat " i "\", \"label\": \"cat\"}";
      else print "{\"text\": \"a dog ran far away from home " i "\", \"label\": \"dog\"}";
    }
  }' >"$1"
}

# make_two_nodes: two network namespaces joined by a veth pair, as two nodes of a job (iproute2; needs
# root): ns0/ns1 at addresses $a0/$a1, removed (with every process in them) at exit. Skips without root.
make_two_nodes() {
  [[ $(id -u) == 0 ]] || skip "needs root for network namespaces"
  command -v ip >/dev/null || skip "needs iproute2 (ip)"
  ns0=bertpt-n0-$$ ns1=bertpt-n1-$$ a0=10.231.7.1 a1=10.231.7.2
  local v0=bpa$$ v1=bpb$$ ns
  trap 'remove_two_nodes; cleanup' EXIT
  ip netns add "$ns0" && ip netns add "$ns1" || fail "cannot create network namespaces"
  ip link add "$v0" type veth peer name "$v1" || fail "cannot create a veth pair"
  ip link set "$v0" netns "$ns0" && ip link set "$v1" netns "$ns1" || fail "cannot move the veth ends"
  ip -n "$ns0" addr add "$a0/24" dev "$v0" && ip -n "$ns1" addr add "$a1/24" dev "$v1" || fail "cannot address"
  for ns in "$ns0" "$ns1"; do ip -n "$ns" link set lo up; done
  ip -n "$ns0" link set "$v0" up && ip -n "$ns1" link set "$v1" up || fail "cannot bring the link up"
}

# kill_node NS: SIGKILL every process of namespace NS (a node lost at once).
kill_node() {
  local p
  for p in $(ip netns pids "$1" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
}

remove_two_nodes() {
  local ns
  for ns in "$ns0" "$ns1"; do
    kill_node "$ns"
    ip netns del "$ns" 2>/dev/null
  done
}
