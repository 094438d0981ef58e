// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | filecheck %s

// Untagged bodies make the tiers visible: scalars, loads, computes, stores.
// arith.constant and other scalar arith are ScalarCompute (tier 0), even after
// a load; pypto.tile.full produces a tile, so it is compute.

// CHECK-LABEL: func.func @scalars
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %c64 = arith.constant 64 : index
// CHECK-NEXT:      %off = arith.muli %i, %c64 : index
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %last = arith.cmpi eq, %i, %c1 : index
// CHECK-NEXT:      %t = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %z = pypto.tile.full %zero
// CHECK-NEXT:      "test.pureop"(%t, %z, %last)
// CHECK-NEXT:      pypto.tile.store %t, %out[%off]
// CHECK-NEXT:    }
func.func @scalars(%x: !pypto.tensor<256xf32>, %out: !pypto.tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %c64 = arith.constant 64 : index
    %off = arith.muli %i, %c64 : index
    %zero = arith.constant 0.0 : f32
    %z = pypto.tile.full %zero : f32 -> !pypto.tile<64xf32, vec>
    %last = arith.cmpi eq, %i, %c1 : index
    "test.pureop"(%t, %z, %last) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>, i1) -> ()
    pypto.tile.store %t, %out[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
  }
  func.return
}

// -----

// pypto.tile.read is a Load although its result is a scalar: it goes above
// the compute before it. pypto.tile.write is a Store: it sinks below the
// compute after it.

// CHECK-LABEL: func.func @read_and_write
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %t = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %e = pypto.tile.read %t[%c0]
// CHECK-NEXT:      %n = pypto.tile.neg %t
// CHECK-NEXT:      %m = pypto.tile.muls %t, %e
// CHECK-NEXT:      %w = pypto.tile.write %e, %n[%c0]
// CHECK-NEXT:      "test.pureop"(%w, %m)
// CHECK-NEXT:    }
func.func @read_and_write(%x: !pypto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    %n = pypto.tile.neg %t : !pypto.tile<64xf32, vec>
    %e = pypto.tile.read %t[%c0] : !pypto.tile<64xf32, vec>
    %w = pypto.tile.write %e, %n[%c0] : !pypto.tile<64xf32, vec>
    %m = pypto.tile.muls %t, %e : !pypto.tile<64xf32, vec>, f32
    "test.pureop"(%w, %m) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// -----

// pypto.tile.extract from mat into left or right is a Load (L1 -> L0); an
// extract into any other space and every pypto.tile.move are compute, and keep
// their order among the computes.

// CHECK-LABEL: func.func @extract_and_move
// CHECK:         scf.for %k = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %m = pypto.tile.load %a[%c0, %c0]
// CHECK-NEXT:      %l = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
// CHECK-NEXT:      %r = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, right>
// CHECK-NEXT:      %acc = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, acc>
// CHECK-NEXT:      %mv = pypto.tile.move %m : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, left>
// CHECK-NEXT:      %v = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<16x32xbf16, vec>
// CHECK-NEXT:      "test.pureop"(%l, %r, %acc, %mv, %v)
// CHECK-NEXT:    }
func.func @extract_and_move(%a: !pypto.tensor<32x32xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %k = %c0 to %c4 step %c1 stages 1 {
    %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<32x32xbf16> -> !pypto.tile<32x32xbf16, mat>
    %acc = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, acc>
    %mv = pypto.tile.move %m : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, left>
    %l = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
    %v = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<16x32xbf16, vec>
    %r = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, right>
    "test.pureop"(%l, %r, %acc, %mv, %v) : (!pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right>, !pypto.tile<32x32xbf16, acc>, !pypto.tile<32x32xbf16, left>, !pypto.tile<16x32xbf16, vec>) -> ()
  }
  func.return
}

// -----

// Ops with regions (scf.if here) are compute: the load after the scf.if goes
// above it (the scf.if touches no memory), the store inside it stays there.

// CHECK-LABEL: func.func @region_op_is_compute
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %t = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %s = scf.if %cond -> (!pypto.tile<64xf32, vec>) {
// CHECK-NEXT:        %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:        %f = pypto.tile.full %one
// CHECK-NEXT:        scf.yield %f
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:        %g = pypto.tile.full %two
// CHECK-NEXT:        scf.yield %g
// CHECK-NEXT:      }
// CHECK-NEXT:      %sum = pypto.tile.add %s, %t
// CHECK-NEXT:      pypto.tile.store %sum, %out[%c0]
// CHECK-NEXT:    }
func.func @region_op_is_compute(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %s = scf.if %cond -> (!pypto.tile<64xf32, vec>) {
      %one = arith.constant 1.0 : f32
      %f = pypto.tile.full %one : f32 -> !pypto.tile<64xf32, vec>
      scf.yield %f : !pypto.tile<64xf32, vec>
    } else {
      %two = arith.constant 2.0 : f32
      %g = pypto.tile.full %two : f32 -> !pypto.tile<64xf32, vec>
      scf.yield %g : !pypto.tile<64xf32, vec>
    }
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    %sum = pypto.tile.add %s, %t : !pypto.tile<64xf32, vec>
    pypto.tile.store %sum, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<64xf32>
  }
  func.return
}
