#!/usr/bin/env bash
# Packs a CUDA build of mpt, with the MLIR/LLVM 22 libraries and tools it runs
# on, into one archive for a GPU machine that has the CUDA toolkit and a driver
# but no Debian LLVM 22 and no package registry (so scripts/device-check.sh
# cannot build there). scripts/device-check.sh --bundle ARCHIVE installs it.
#
#   scripts/make-device-bundle.sh [BUILD_DIR] [ARCHIVE]
#
# Libraries the target may lack are packed too; device-check.sh uses each only
# where the target has none of that soname. z3 and libxml2, which libLLVM
# links but mpt never calls (the SMT solver and Windows manifests), are
# replaced by stubs that abort if called: they would be 25 MB of the archive.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
archive="${2:-$root/.devbundle/mpt-bundle.tar.xz}"
llvm=/usr/lib/llvm-22

for f in bin/mpt-run bin/mpt-opt bin/mpt-cuda-check lib/libmpt_cuda_runtime.so test/lit.site.cfg.py; do
  [ -e "$build/$f" ] || { echo "make-device-bundle: $build/$f missing: build with CUDA first" >&2; exit 1; }
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# The build, at the absolute path its lit.site.cfg.py names.
build_abs="$(cd "$build" && pwd)"
mkdir -p "$stage/root$build_abs/lib" "$stage/root$build_abs/test"
cp -a "$build/bin" "$stage/root$build_abs/"
cp -a "$build/lib/libmpt_cuda_runtime.so" "$stage/root$build_abs/lib/"
(cd "$build" && find test -name 'lit.site.cfg.py' -exec cp --parents {} "$stage/root$build_abs/" \;)

# MLIR/LLVM 22 at the paths the binaries' RUNPATH and lit.site.cfg.py name.
mkdir -p "$stage/root$llvm/lib" "$stage/root$llvm/bin" "$stage/root$llvm/utils"
for lib in libMLIR.so.22.1 libmlir_c_runner_utils.so.22.1 libmlir_runner_utils.so.22.1 \
           libmlir_float16_utils.so.22.1 libmlir_apfloat_wrappers.so.22.1; do
  cp -L "$llvm/lib/$lib" "$stage/root$llvm/lib/"
  ln -s "$lib" "$stage/root$llvm/lib/${lib%.22.1}"
done
cp -L "$llvm/lib/libLLVM.so.22.1" "$stage/root$llvm/lib/"
for tool in FileCheck not count split-file mlir-runner lit; do
  cp -L "$llvm/bin/$tool" "$stage/root$llvm/bin/"
done
cp -a "$llvm/utils/lit" "$stage/root$llvm/utils/"
find "$stage/root$llvm/utils" -name __pycache__ -prune -exec rm -rf {} +

# Other libraries, used on the target only where it lacks the soname.
mkdir -p "$stage/root/opt/mpt-bundle/lib"
needed="$( (ldd "$build/bin/mpt-run"; ldd "$llvm/bin/mlir-runner") | awk '/=>/ {print $1, $3}' | sort -u)"
while read -r soname path; do
  case "$soname" in
    libc.so.* | libm.so.* | libgcc_s.so.* | libstdc++.so.* | ld-linux*) ;; # the target's own
    libMLIR.so.* | libLLVM.so.* | libmlir_*) ;;                           # packed above
    libz3.so.* | libxml2.so.* | libicu*) ;;                               # stubbed below
    *) cp -L "$path" "$stage/root/opt/mpt-bundle/lib/$soname" ;;
  esac
done <<< "$needed"

# A stub for each library libLLVM links but mpt never calls: every symbol
# libLLVM imports from it, with its symbol version, aborting when called.
stub() {
  local soname="$1" real="$2" dir="$stage/stub-$1"
  mkdir -p "$dir"
  # "name kind version" for each symbol libLLVM imports that $real defines.
  nm -D --defined-only "$real" | awk '{split($3, n, "@"); print n[1], $2}' > "$dir/exports"
  nm -D --undefined-only "$llvm/lib/libLLVM.so.22.1" | awk '{split($2, n, "@"); print n[1], n[2]}' \
    | awk 'NR == FNR {kind[$1] = $2; next} ($1 in kind) {print $1, kind[$1], $2}' "$dir/exports" - \
    > "$dir/symbols"
  awk 'BEGIN {print "#include <stdlib.h>"}
       $2 ~ /^[TtWi]$/ {print "void " $1 "(void) { abort(); }"; next}
       {print "void *" $1 ";"}' "$dir/symbols" > "$dir/stub.c"
  awk '$3 != "" {names[$3] = names[$3] "  " $1 ";\n"}
       END {for (v in names) printf "%s {\n%s};\n", v, names[v]}' "$dir/symbols" > "$dir/versions"
  local flags=()
  [ -s "$dir/versions" ] && flags=(-Wl,--version-script="$dir/versions")
  cc -shared -fPIC -o "$stage/root/opt/mpt-bundle/lib/$soname" -Wl,-soname,"$soname" "${flags[@]}" "$dir/stub.c"
  echo "make-device-bundle: stub $soname ($(wc -l < "$dir/symbols") symbols)"
}
stub libz3.so.4 /usr/lib/x86_64-linux-gnu/libz3.so.4
stub libxml2.so.2 /usr/lib/x86_64-linux-gnu/libxml2.so.2

mkdir -p "$(dirname "$archive")"
tar -C "$stage/root" -cf - . | xz -9 -T0 > "$archive"
echo "make-device-bundle: $archive ($(du -h "$archive" | cut -f1))"
