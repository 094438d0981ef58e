// Every type and attribute of the dialect prints in the syntax of ir.md, and
// round-trips through the custom and the generic form.

// RUN: xdsl-opt %s | %roundtrip | filecheck %s
// RUN: xdsl-opt %s | %roundtrip-generic | filecheck %s
// RUN: xdsl-opt %s > %t && xdsl-opt %s | %roundtrip-generic | diff %t -

// Tensors of rank 1 to 3.
func.func private @tensor_ranks(!pypto.tensor<1024xf32>, !pypto.tensor<128x64xf32>, !pypto.tensor<2x3x4xf32>)
// CHECK: func.func private @tensor_ranks(!pypto.tensor<1024xf32>, !pypto.tensor<128x64xf32>, !pypto.tensor<2x3x4xf32>) -> ()

// Every supported element type.
func.func private @tensor_floats(!pypto.tensor<8xf16>, !pypto.tensor<8xbf16>, !pypto.tensor<8xf32>, !pypto.tensor<8xf64>)
// CHECK: func.func private @tensor_floats(!pypto.tensor<8xf16>, !pypto.tensor<8xbf16>, !pypto.tensor<8xf32>, !pypto.tensor<8xf64>) -> ()
func.func private @tensor_integers(!pypto.tensor<8xi1>, !pypto.tensor<8xi8>, !pypto.tensor<8xi16>, !pypto.tensor<8xi32>, !pypto.tensor<8xi64>)
// CHECK: func.func private @tensor_integers(!pypto.tensor<8xi1>, !pypto.tensor<8xi8>, !pypto.tensor<8xi16>, !pypto.tensor<8xi32>, !pypto.tensor<8xi64>) -> ()
func.func private @tile_elements(!pypto.tile<16x16xf16, vec>, !pypto.tile<16x16xbf16, vec>, !pypto.tile<16x16xf32, vec>, !pypto.tile<16x16xi1, vec>, !pypto.tile<16x16xi8, vec>, !pypto.tile<16x16xi32, vec>)
// CHECK: func.func private @tile_elements(!pypto.tile<16x16xf16, vec>, !pypto.tile<16x16xbf16, vec>, !pypto.tile<16x16xf32, vec>, !pypto.tile<16x16xi1, vec>, !pypto.tile<16x16xi8, vec>, !pypto.tile<16x16xi32, vec>) -> ()

// A tile in each memory space, and of rank 1 and 3.
func.func private @tile_spaces(!pypto.tile<64x64xf32, vec>, !pypto.tile<128x256xbf16, mat>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>, !pypto.tile<16x256xf32, acc>, !pypto.tile<1x256xf32, bias>)
// CHECK: func.func private @tile_spaces(!pypto.tile<64x64xf32, vec>, !pypto.tile<128x256xbf16, mat>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>, !pypto.tile<16x256xf32, acc>, !pypto.tile<1x256xf32, bias>) -> ()
func.func private @tile_ranks(!pypto.tile<128xf32, vec>, !pypto.tile<2x4x8xf32, vec>)
// CHECK: func.func private @tile_ranks(!pypto.tile<128xf32, vec>, !pypto.tile<2x4x8xf32, vec>) -> ()

// The attributes, as discardable attributes; the tile type also as a type attribute.
func.func private @attributes() attributes {space = #pypto.memory_space<acc>, spaces = [#pypto.memory_space<vec>, #pypto.memory_space<mat>, #pypto.memory_space<left>, #pypto.memory_space<right>, #pypto.memory_space<bias>], one = #pypto.membership<0:1>, nested = #pypto.membership<3:0, 0:1, 12:10>, tile = !pypto.tile<4xi8, vec>}
// CHECK: func.func private @attributes() -> () attributes {space = #pypto.memory_space<acc>, spaces = [#pypto.memory_space<vec>, #pypto.memory_space<mat>, #pypto.memory_space<left>, #pypto.memory_space<right>, #pypto.memory_space<bias>], one = #pypto.membership<0:1>, nested = #pypto.membership<3:0, 0:1, 12:10>, tile = !pypto.tile<4xi8, vec>}

// Whitespace inside the brackets is free; the printer normalises it.
func.func private @spacing(!pypto.tile< 8x8xf32 ,  vec >) attributes {m = #pypto.membership< 1 : 2 ,3:4 >}
// CHECK: func.func private @spacing(!pypto.tile<8x8xf32, vec>) -> () attributes {m = #pypto.membership<1:2, 3:4>}
