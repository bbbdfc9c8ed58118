// The generated reduction kernels, in their mapped scf.parallel form
// (mpt-lower-to-cuda stop-at=cpu-loops: a block per output, 256 threads each
// folding a strided slice, then a block-wide tree; a two-pass split when
// there are few outputs; column sums one thread per column, the rows split
// into parts over a second kernel), run on the CPU against the CPU
// lowering's sequential loops.
//
// Integer-valued data sum exactly in f32 in any order, so there the two must
// agree bitwise, and the closed forms hold: x[i][j] = (i + 2j) mod 5 cycles
// through 0..4 along both dimensions, so every row of 1000 sums to 2000,
// every column of 1000 to 2000 (37 and 300 columns), and all 300x1000 to
// 600000.
//
// On irrational data the order changes the rounding. Tolerance: every term
// is positive, so the relative error of either sum is at most n·eps (eps =
// 2^-24 after rounding to nearest) and about sqrt(n)·eps for independent
// roundings; for the largest reduction (n = 300000, the full sum) that is
// 3.3e-5, so rtol = 1e-4 (the column sums fold 31 parts of at most 33 rows
// each, then the parts, a smaller error than one sequential fold). Softmax adds one f16 rounding of its f32 result
// (an f16 half-ulp, 4.9e-4 relative, can flip), so its outputs get rtol 1e-3.
// The all-finite flag and the gradient statistics are counts: exact.
// (printMemrefF32 prints 6 significant digits, the resolution of these
// comparisons; measured here: 70 of 338 irrational sums differ, by at most
// 2e-6 relative.)
//
// RUN: mpt-opt %s --mpt-lower-to-cpu | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.cpu
// RUN: mpt-opt %s --mpt-lower-to-cuda="stop-at=cpu-loops" | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.gpu
// RUN: FileCheck %s --check-prefix=EXACT < %t.gpu
// RUN: split-file %t.cpu %t.cpu.d && split-file %t.gpu %t.gpu.d
// RUN: %python %S/Inputs/compare.py %t.cpu.d/exact %t.gpu.d/exact --rtol 0 --atol 0 --min-count 638 \
// RUN:   | FileCheck %s --check-prefix=SAME
// RUN: %python %S/Inputs/compare.py %t.cpu.d/sums %t.gpu.d/sums --rtol 1e-4 --atol 0 --min-count 638 \
// RUN:   | FileCheck %s --check-prefix=CLOSE
// RUN: %python %S/Inputs/compare.py %t.cpu.d/softmax %t.gpu.d/softmax --rtol 1e-3 --atol 0 --min-count 2000 \
// RUN:   | FileCheck %s --check-prefix=CLOSE
// RUN: %python %S/Inputs/compare.py %t.cpu.d/counts %t.gpu.d/counts --rtol 0 --atol 0 --min-count 3 \
// RUN:   | FileCheck %s --check-prefix=SAME
// SAME: 0 mismatches, max abs diff 0,
// CLOSE: 0 mismatches
//
// EXACT-LABEL: //--- exact
// EXACT: data =
// EXACT-NEXT: [2000,  2000,
// EXACT: data =
// EXACT-NEXT: [2000,  2000,
// EXACT: data =
// EXACT-NEXT: [2000,  2000,
// EXACT: data =
// EXACT-NEXT: [600000]
// EXACT-LABEL: //--- counts
// EXACT: data =
// EXACT-NEXT: [0]
// EXACT: data =
// EXACT-NEXT: [3]
// EXACT: data =
// EXACT-NEXT: [1]
//
// The launches: rows one block of 256 threads per row; columns one thread
// per column (37 threads, or 256 in 2 blocks for 300 columns, the last
// guarded), each block_y folding one of 31 parts of the 1000 rows, then one
// kernel folding the parts; the full sum 146 blocks then one. Only the row
// and full sums are block trees (gpu.all_reduce). Each reduction's first
// launch before these fills its outputs with zeros.
// RUN: mpt-opt %s --mpt-lower-to-cuda="stop-at=gpu" | FileCheck %s --check-prefix=GPU
// GPU-LABEL: func.func @sums(
// GPU: gpu.launch_func {{.*}} blocks in (%c300, %c1, %c1) threads in (%c256, %c1, %c1)
// GPU: gpu.launch_func {{.*}} blocks in (%c1, %c31, %c1) threads in (%c37, %c1, %c1)
// GPU: gpu.launch_func {{.*}} blocks in (%c1, %c1, %c1) threads in (%c37, %c1, %c1)
// GPU: gpu.launch_func {{.*}} blocks in (%c2, %c31, %c1) threads in (%c256, %c1, %c1)
// GPU: gpu.launch_func {{.*}} blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
// GPU: gpu.launch_func {{.*}} blocks in (%c1, %c146, %c1) threads in (%c256, %c1, %c1)
// GPU: gpu.launch_func {{.*}} blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
// GPU-NOT: gpu.launch_func
// GPU: return
// GPU-LABEL: gpu.module
// GPU-COUNT-3: gpu.all_reduce {{.*}} uniform
// GPU-NOT: gpu.all_reduce
// GPU: gpu.func @softmax_kernel(

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)
func.func private @printString(!llvm.ptr)

func.func @sums(%x: tensor<300x1000xf32>, %c: tensor<1000x37xf32>, %w: tensor<1000x300xf32>)
    -> (tensor<300xf32>, tensor<37xf32>, tensor<300xf32>, tensor<f32>) {
  %rows = mpt.reduce_sum %x [1] : tensor<300x1000xf32> -> tensor<300xf32>
  %cols = mpt.reduce_sum %c [0] : tensor<1000x37xf32> -> tensor<37xf32>
  %wide = mpt.reduce_sum %w [0] : tensor<1000x300xf32> -> tensor<300xf32>
  %all = mpt.reduce_sum %x [0, 1] : tensor<300x1000xf32> -> tensor<f32>
  return %rows, %cols, %wide, %all : tensor<300xf32>, tensor<37xf32>, tensor<300xf32>, tensor<f32>
}

func.func @softmax(%x: tensor<20x100xf32>) -> tensor<20x100xf16> {
  %h = arith.truncf %x : tensor<20x100xf32> to tensor<20x100xf16>
  %s = mpt.softmax %h : tensor<20x100xf16>
  return %s : tensor<20x100xf16>
}

func.func @counts(%a: tensor<300x1000xf32>, %b: tensor<37xf32>) -> (tensor<i1>, tensor<i64>, tensor<i64>) {
  %finite = mpt.all_finite %a, %b : tensor<300x1000xf32>, tensor<37xf32>
  %zeros, %nonfinite = mpt.gradient_stats %a, %b : tensor<300x1000xf32>, tensor<37xf32>
  return %finite, %zeros, %nonfinite : tensor<i1>, tensor<i64>, tensor<i64>
}

// x[i][j] = (i + 2j) mod 5 when `exact`, else 0.5 + sin(i·0.7548776 + j)/3.
func.func @data(%exact: i1) -> tensor<300x1000xf32> {
  %x = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %j2 = arith.muli %j, %c2 : index
    %s = arith.addi %i, %j2 : index
    %m = arith.remui %s, %c5 : index
    %mi = arith.index_cast %m : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %ii = arith.index_cast %i : index to i32
    %ji = arith.index_cast %j : index to i32
    %if = arith.sitofp %ii : i32 to f32
    %jf = arith.sitofp %ji : i32 to f32
    %a = arith.constant 0.7548776 : f32
    %t = arith.mulf %if, %a : f32
    %u = arith.addf %t, %jf : f32
    %v = math.sin %u : f32
    %third = arith.constant 0.33333334 : f32
    %half = arith.constant 0.5 : f32
    %w = arith.mulf %v, %third : f32
    %r = arith.addf %w, %half : f32
    %y = arith.select %exact, %mf, %r : f32
    tensor.yield %y : f32
  } : tensor<300x1000xf32>
  return %x : tensor<300x1000xf32>
}

func.func @run(%exact: i1) {
  %x = call @data(%exact) : (i1) -> tensor<300x1000xf32>
  %c = tensor.extract_slice %x[0, 0] [300, 37] [1, 1] : tensor<300x1000xf32> to tensor<300x37xf32>
  %cc = tensor.concat dim(0) %c, %c, %c, %c : (tensor<300x37xf32>, tensor<300x37xf32>, tensor<300x37xf32>, tensor<300x37xf32>) -> tensor<1200x37xf32>
  %c1000 = tensor.extract_slice %cc[0, 0] [1000, 37] [1, 1] : tensor<1200x37xf32> to tensor<1000x37xf32>
  %w = tensor.extract_slice %x[0, 0] [300, 300] [1, 1] : tensor<300x1000xf32> to tensor<300x300xf32>
  %ww = tensor.concat dim(0) %w, %w, %w, %w : (tensor<300x300xf32>, tensor<300x300xf32>, tensor<300x300xf32>, tensor<300x300xf32>) -> tensor<1200x300xf32>
  %w1000 = tensor.extract_slice %ww[0, 0] [1000, 300] [1, 1] : tensor<1200x300xf32> to tensor<1000x300xf32>
  %rows, %cols, %wide, %all = call @sums(%x, %c1000, %w1000)
      : (tensor<300x1000xf32>, tensor<1000x37xf32>, tensor<1000x300xf32>)
      -> (tensor<300xf32>, tensor<37xf32>, tensor<300xf32>, tensor<f32>)
  %ru = tensor.cast %rows : tensor<300xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  %cu = tensor.cast %cols : tensor<37xf32> to tensor<*xf32>
  call @printMemrefF32(%cu) : (tensor<*xf32>) -> ()
  %wu = tensor.cast %wide : tensor<300xf32> to tensor<*xf32>
  call @printMemrefF32(%wu) : (tensor<*xf32>) -> ()
  %au = tensor.cast %all : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%au) : (tensor<*xf32>) -> ()
  return
}

// x with inf at [299][999] and zeros at [0][0] and [0][400] (the latter also
// lands in b, squared: the third zero).
func.func @special(%x: tensor<300x1000xf32>) -> tensor<300x1000xf32> {
  %y = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c299 = arith.constant 299 : index
    %c400 = arith.constant 400 : index
    %c999 = arith.constant 999 : index
    %inf = arith.constant 0x7F800000 : f32
    %zero = arith.constant 0.0 : f32
    %v = tensor.extract %x[%i, %j] : tensor<300x1000xf32>
    %last_i = arith.cmpi eq, %i, %c299 : index
    %last_j = arith.cmpi eq, %j, %c999 : index
    %last = arith.andi %last_i, %last_j : i1
    %first_i = arith.cmpi eq, %i, %c0 : index
    %first_j = arith.cmpi eq, %j, %c0 : index
    %mid_j = arith.cmpi eq, %j, %c400 : index
    %zj = arith.ori %first_j, %mid_j : i1
    %z = arith.andi %first_i, %zj : i1
    %a = arith.select %last, %inf, %v : f32
    %r = arith.select %z, %zero, %a : f32
    tensor.yield %r : f32
  } : tensor<300x1000xf32>
  return %y : tensor<300x1000xf32>
}

llvm.mlir.global internal constant @exact_header("//--- exact\0A\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @sums_header("//--- sums\0A\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @softmax_header("//--- softmax\0A\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @counts_header("//--- counts\0A\00") {addr_space = 0 : i32}

func.func @main() {
  %true = arith.constant true
  %false = arith.constant false
  %h0 = llvm.mlir.addressof @exact_header : !llvm.ptr
  call @printString(%h0) : (!llvm.ptr) -> ()
  call @run(%true) : (i1) -> ()
  %h1 = llvm.mlir.addressof @sums_header : !llvm.ptr
  call @printString(%h1) : (!llvm.ptr) -> ()
  call @run(%false) : (i1) -> ()

  %h2 = llvm.mlir.addressof @softmax_header : !llvm.ptr
  call @printString(%h2) : (!llvm.ptr) -> ()
  %x = call @data(%false) : (i1) -> tensor<300x1000xf32>
  %xs = tensor.extract_slice %x[0, 0] [20, 100] [1, 1] : tensor<300x1000xf32> to tensor<20x100xf32>
  %ten = arith.constant dense<10.0> : tensor<20x100xf32>
  %xl = arith.mulf %xs, %ten : tensor<20x100xf32>
  %s = call @softmax(%xl) : (tensor<20x100xf32>) -> tensor<20x100xf16>
  %sf = arith.extf %s : tensor<20x100xf16> to tensor<20x100xf32>
  %su = tensor.cast %sf : tensor<20x100xf32> to tensor<*xf32>
  call @printMemrefF32(%su) : (tensor<*xf32>) -> ()

  // One inf and three zeros among 300037 values: not all finite, 3 zeros,
  // 1 non-finite.
  %h3 = llvm.mlir.addressof @counts_header : !llvm.ptr
  call @printString(%h3) : (!llvm.ptr) -> ()
  %x3 = call @special(%x) : (tensor<300x1000xf32>) -> tensor<300x1000xf32>
  %bs = tensor.extract_slice %x3[0, 383] [1, 37] [1, 1] : tensor<300x1000xf32> to tensor<37xf32>
  %b = arith.mulf %bs, %bs : tensor<37xf32>
  %finite, %zeros, %nonfinite = call @counts(%x3, %b)
      : (tensor<300x1000xf32>, tensor<37xf32>) -> (tensor<i1>, tensor<i64>, tensor<i64>)
  %fi = arith.extui %finite : tensor<i1> to tensor<i64>
  %fu = tensor.cast %fi : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%fu) : (tensor<*xi64>) -> ()
  %zu = tensor.cast %zeros : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%zu) : (tensor<*xi64>) -> ()
  %nu = tensor.cast %nonfinite : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%nu) : (tensor<*xi64>) -> ()
  return
}
