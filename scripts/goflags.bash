# goflags.bash, sourced by the scripts beside it: the build flags all of them
# give the go command, so that they share one build cache.
#
#   . "$root/scripts/goflags.bash"
#
# -trimpath makes a compiled package independent of the checkout's path: a CI
# clone elsewhere reuses the cache, and a package that several modules build
# (with the same versions of it and of everything below it) is compiled once
# for all of them. -gcflags=all=-dwarf=false and -ldflags=-w leave out the
# debugging information (DWARF) that only a debugger reads: compiling and
# linking take about a tenth less time, and the programs run, panic and report
# races exactly as before (stack traces come from another table). A build for
# a debugger is an ordinary go build, without these flags.
#
# The go command applies each flag only where it means something (go mod tidy
# ignores them all), and a flag on a command line overrides the one here:
# the e2e framework's own -ldflags keep -w.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath -gcflags=all=-dwarf=false -ldflags=-w"
