#!/bin/sh
# Writes the inputs of the shared scanner vectors (tests/vectors/scan/*.json)
# into fuzz/corpus/scan/, one file each, as a seed corpus for `cargo fuzz run scan`.
set -eu
cd "$(dirname "$0")/.."
mkdir -p fuzz/corpus/scan
for f in tests/vectors/scan/*.json; do
    python3 -c 'import json, sys; sys.stdout.write(json.load(open(sys.argv[1], encoding="utf-8"))["input"])' "$f" \
        > "fuzz/corpus/scan/$(basename "$f" .json)"
done
echo "$(ls fuzz/corpus/scan | wc -l) seed inputs in fuzz/corpus/scan"
