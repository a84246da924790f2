#!/usr/bin/env bash
# Installs what etkit needs to build and test, from Debian 12 packages (run as root).
# Google Benchmark, Eigen and OpenBLAS (--bench) are only needed for -DETKIT_BUILD_BENCH=ON; clang
# and its libFuzzer runtime (--fuzz) for -DETKIT_FUZZ=ON (scripts/fuzz.sh); chromium (--browser)
# for the headless-browser test of etdump-inspect's HTML report (required when CI=true). Flags
# combine.
set -euo pipefail
packages=(
  cmake g++ make
  flatbuffers-compiler libflatbuffers-dev   # .pte/.bpte/.ptd schemas -> C++ headers
  libcli11-dev                              # command-line parsing in tools
  nlohmann-json3-dev                        # JSON output in tools
  libre2-dev                                # event filters (tracing)
  zlib1g-dev                                # deflated entries of ETRecord zips
  libsqlite3-dev                            # etdump-inspect export --format sqlite, query
  doctest-dev                               # unit tests
  jq                                        # tests read the HTML report's JSON island
)
for flag in "$@"; do
  case $flag in
    --bench) packages+=(libbenchmark-dev libeigen3-dev libopenblas-dev) ;;
    --fuzz) packages+=(clang libclang-rt-dev) ;;
    --browser) packages+=(chromium) ;;
    *) echo "install-deps: unknown flag '$flag' (flags: --bench, --fuzz, --browser)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root, or install them)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
