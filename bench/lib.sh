# Shared by the benchmark scripts (sourced): where the tree and the binary are.
# shellcheck shell=sh
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
case $BUILD in
/*) B=$BUILD ;;
*) B=$TOP/$BUILD ;;
esac
BIN=$B/cgroup-feedback
