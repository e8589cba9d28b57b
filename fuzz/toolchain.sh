# Sourced, not run, by every fuzz script that builds (build.sh, embedded.sh,
# heif_boxes.sh, hevc.sh, raw.sh, identity.sh): the folders and the
# compilers they build with.
#   here  this folder (fuzz/)        root  the package
#   out   fuzz/out, made if missing  bin   the Swift toolchain's bin folder
#   cc    the toolchain's clang (libFuzzer and the sanitizers come with it),
#         else the clang on PATH
#   cxx   the same for clang++
#   shim  Sources/CVipsShim
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
out=$here/out
mkdir -p "$out"
bin=$(dirname "$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)")
cc=$bin/clang; [[ -x $cc ]] || cc=clang
cxx=$bin/clang++; [[ -x $cxx ]] || cxx=clang++
shim=$root/Sources/CVipsShim
