#!/usr/bin/env bash
# Checks that shared state between calls computes what explicit state does: one encode plus 8
# decode steps of samples/seq2seq.json (state shared between calls in one trace-run process)
# give the same logits, bit for bit, as samples/seq2seq_explicit.json run step by step with the
# state passed explicitly (each step's state outputs fed to the next step's inputs).
#
# Usage: seq2seq_compare.sh SAMPLES_DIR TMP_DIR
#   SAMPLES_DIR  the built samples, holding seq2seq.pte and seq2seq_explicit.pte (build/samples)
#   TMP_DIR      an existing folder for the outputs
# trace-run must be on PATH. From the checkout's root, after a build:
#   PATH=build/bin:$PATH tests/cli/model-export/seq2seq_compare.sh build/samples "$(mktemp -d)"
# Prints one line per step; exits 0 when every step matches, 1 when one differs, 2 on bad use.
set -eu
usage() {
  echo "usage: seq2seq_compare.sh SAMPLES_DIR TMP_DIR ($1)" >&2
  exit 2
}
[ $# -eq 2 ] || usage "expected 2 arguments, got $#"
samples=$1
tmp=$2
for f in seq2seq.pte seq2seq_explicit.pte; do
  [ -f "$samples/$f" ] || usage "$samples/$f does not exist; build the samples first"
done
[ -d "$tmp" ] || usage "$tmp is not a folder"
command -v trace-run >/dev/null || usage "trace-run is not on PATH (PATH=build/bin:\$PATH)"
calls=(--call encode:random:100)
for t in 1 2 3 4 5 6 7 8; do calls+=(--call "decode_step:random:$t"); done
trace-run "$samples/seq2seq.pte" "${calls[@]}" --outputs "$tmp/stateful" >/dev/null
k=zeros; v=zeros; valid=zeros
for t in 1 2 3 4 5 6 7 8; do
  trace-run "$samples/seq2seq_explicit.pte" -i random:100 -i "random:$t" -i "$k" -i "$v" \
      -i "$valid" --outputs "$tmp/explicit$t" >/dev/null
  k=$tmp/explicit$t/output_1.npy; v=$tmp/explicit$t/output_2.npy; valid=$tmp/explicit$t/output_3.npy
  if cmp -s "$tmp/stateful/call$((t + 1))_output_0.npy" "$tmp/explicit$t/output_0.npy"; then
    echo "step $t: logits identical"
  else
    echo "step $t: logits differ"
    exit 1
  fi
done
# The state really carries over: step 8 differs from a decode step right after encode.
trace-run "$samples/seq2seq.pte" --call encode:random:100 --call decode_step:random:8 \
    --outputs "$tmp/fresh" >/dev/null
if cmp -s "$tmp/fresh/call2_output_0.npy" "$tmp/stateful/call9_output_0.npy"; then
  echo "step 8 does not depend on the earlier steps"
  exit 1
fi
echo "step 8 depends on steps 1-7 (the KV cache)"
