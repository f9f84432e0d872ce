#!/usr/bin/env bash
# Fuzzes every reader of outside bytes with libFuzzer (Docs/guides/recovery.md, "Fuzzing"):
# segments and recovery, checkpoints, exports, FlightAware JSON and the tools' argument parser,
# each for FUZZ_SECONDS (default 60). FUZZ_TARGETS picks some ("segment export"). Each target
# starts from seeds the current code writes, plus what earlier runs here found interesting
# (.build-fuzz/corpus). A crash, a hang (over 10 s) or an input that needs over 2 GB is written
# to Fuzz/findings/TARGET/ and fails the run; once fixed, add the file to
# Tests/FuzzRegressionTests/Crashers/TARGET/ so that `swift test` replays it for good.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
targets="${FUZZ_TARGETS:-segment checkpoint export flightaware arguments}"
scratch=.build-fuzz
flags=(-c release --product graphstore-fuzz --scratch-path "$scratch"
       -Xswiftc -sanitize=fuzzer -Xswiftc -D -Xswiftc FUZZING -Xswiftc -use-ld=lld)

echo "building the fuzzer (libFuzzer, release)…"
swift build "${flags[@]}"
fuzzer="$(swift build "${flags[@]}" --show-bin-path)/graphstore-fuzz"
echo "writing seeds…"
swift build --product graphstore-fuzz
seeds="$scratch/seeds"
rm -rf "$seeds"
"$(swift build --show-bin-path)/graphstore-fuzz" seeds "$seeds"

failed=0
summary=""
for target in $targets; do
    corpus="$scratch/corpus/$target"
    findings="Fuzz/findings/$target"
    mkdir -p "$corpus" "$findings"
    cp "$seeds/$target"/* "$corpus"/
    log="$scratch/$target.log"
    echo "fuzzing $target for ${seconds}s…"
    status=0
    GRAPHSTORE_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no "$fuzzer" "$corpus" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$findings/" -print_final_stats=1 > "$log" 2>&1 || status=$?
    runs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || true)"
    coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)"
    found="$(find "$findings" -type f | wc -l | tr -d ' ')"
    line="$target: ${runs:-?} executions, coverage ${coverage:-?}, corpus $(find "$corpus" -type f | wc -l | tr -d ' ') inputs, $found finding(s)"
    if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        line="$line — FAILED (exit $status; see $log and $findings)"
        tail -40 "$log"
    fi
    echo "$line"
    summary="$summary$line"$'\n'
done
echo
echo "fuzzing summary (${seconds}s per target):"
printf "%s" "$summary"
exit "$failed"
