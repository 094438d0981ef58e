// Every tile op prints in the custom syntax of ir.md, and round-trips through
// the custom and the generic form.

// RUN: xdsl-opt %s | %roundtrip | filecheck %s
// RUN: xdsl-opt %s | %roundtrip-generic | filecheck %s
// RUN: xdsl-opt %s > %t && xdsl-opt %s | %roundtrip-generic | diff %t -

func.func @gm(%x: !pypto.tensor<128x64xf32>, %v: !pypto.tensor<1024xi8>, %r: index, %c: index) {
  %t = pypto.tile.load %x[%r, %c] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  pypto.tile.store %t, %x[%r, %c] : !pypto.tile<64x64xf32, vec>, !pypto.tensor<128x64xf32>
  %b = pypto.tile.load %v[%r] : !pypto.tensor<1024xi8> -> !pypto.tile<128xi8, mat>
  pypto.tile.store %b, %v[%c] : !pypto.tile<128xi8, mat>, !pypto.tensor<1024xi8>
  func.return
}
// CHECK-LABEL: func.func @gm(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tensor<128x64xf32>, %[[V:\w+]]: !pypto.tensor<1024xi8>, %[[R:\w+]]: index, %[[C:\w+]]: index) {
// CHECK-NEXT:    %[[T:\w+]] = pypto.tile.load %[[X]][%[[R]], %[[C]]] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    pypto.tile.store %[[T]], %[[X]][%[[R]], %[[C]]] : !pypto.tile<64x64xf32, vec>, !pypto.tensor<128x64xf32>
// CHECK-NEXT:    %[[B:\w+]] = pypto.tile.load %[[V]][%[[R]]] : !pypto.tensor<1024xi8> -> !pypto.tile<128xi8, mat>
// CHECK-NEXT:    pypto.tile.store %[[B]], %[[V]][%[[C]]] : !pypto.tile<128xi8, mat>, !pypto.tensor<1024xi8>
// CHECK-NEXT:    func.return

func.func @element_access(%t: !pypto.tile<64x64xf32, vec>, %m: !pypto.tile<8xi1, vec>, %r: index, %c: index) {
  %e = pypto.tile.read %t[%r, %c] : !pypto.tile<64x64xf32, vec>
  %t2 = pypto.tile.write %e, %t[%c, %r] : !pypto.tile<64x64xf32, vec>
  %b = pypto.tile.read %m[%r] {tag} : !pypto.tile<8xi1, vec>
  %m2 = pypto.tile.write %b, %m[%c] {tag} : !pypto.tile<8xi1, vec>
  func.return
}
// CHECK-LABEL: func.func @element_access(
// CHECK-SAME:      %[[T:\w+]]: !pypto.tile<64x64xf32, vec>, %[[M:\w+]]: !pypto.tile<8xi1, vec>, %[[R:\w+]]: index, %[[C:\w+]]: index) {
// CHECK-NEXT:    %[[E:\w+]] = pypto.tile.read %[[T]][%[[R]], %[[C]]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.write %[[E]], %[[T]][%[[C]], %[[R]]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %[[B:\w+]] = pypto.tile.read %[[M]][%[[R]]] {tag} : !pypto.tile<8xi1, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.write %[[B]], %[[M]][%[[C]]] {tag} : !pypto.tile<8xi1, vec>

func.func @data_movement(%m: !pypto.tile<128x256xbf16, mat>, %s: !pypto.tile<32x32xbf16, mat>, %r: index, %c: index) {
  %rhs = pypto.tile.extract %m[%r, %c] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<64x256xbf16, right>
  %lhs = pypto.tile.move %s : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, left>
  func.return
}
// CHECK-LABEL: func.func @data_movement(
// CHECK-SAME:      %[[M:\w+]]: !pypto.tile<128x256xbf16, mat>, %[[S:\w+]]: !pypto.tile<32x32xbf16, mat>, %[[R:\w+]]: index, %[[C:\w+]]: index) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.extract %[[M]][%[[R]], %[[C]]] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<64x256xbf16, right>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.move %[[S]] : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, left>

func.func @cube(%a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, acc>
  %d = pypto.tile.matmul_acc %c, %a, %b : !pypto.tile<16x256xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>
  func.return
}
// CHECK-LABEL: func.func @cube(
// CHECK-SAME:      %[[A:\w+]]: !pypto.tile<16x64xbf16, left>, %[[B:\w+]]: !pypto.tile<64x256xbf16, right>) {
// CHECK-NEXT:    %[[C:\w+]] = pypto.tile.matmul %[[A]], %[[B]] : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, acc>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.matmul_acc %[[C]], %[[A]], %[[B]] : !pypto.tile<16x256xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>

func.func @elementwise_binary(%x: !pypto.tile<64x64xf32, vec>, %y: !pypto.tile<64x64xf32, vec>) {
  %add = pypto.tile.add %x, %y : !pypto.tile<64x64xf32, vec>
  %sub = pypto.tile.sub %x, %y : !pypto.tile<64x64xf32, vec>
  %mul = pypto.tile.mul %x, %y : !pypto.tile<64x64xf32, vec>
  %div = pypto.tile.div %x, %y : !pypto.tile<64x64xf32, vec>
  %max = pypto.tile.max %x, %y : !pypto.tile<64x64xf32, vec>
  %min = pypto.tile.min %x, %y : !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK-LABEL: func.func @elementwise_binary(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>, %[[Y:\w+]]: !pypto.tile<64x64xf32, vec>) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.add %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.sub %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.mul %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.div %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.max %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.min %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>

func.func @tile_scalar(%x: !pypto.tile<64x64xf32, vec>, %s: f32, %i: !pypto.tile<32xi32, vec>, %n: i32) {
  %adds = pypto.tile.adds %x, %s : !pypto.tile<64x64xf32, vec>, f32
  %subs = pypto.tile.subs %x, %s : !pypto.tile<64x64xf32, vec>, f32
  %muls = pypto.tile.muls %x, %s : !pypto.tile<64x64xf32, vec>, f32
  %divs = pypto.tile.divs %x, %s : !pypto.tile<64x64xf32, vec>, f32
  %maxs = pypto.tile.maxs %x, %s : !pypto.tile<64x64xf32, vec>, f32
  %mins = pypto.tile.mins %i, %n : !pypto.tile<32xi32, vec>, i32
  func.return
}
// CHECK-LABEL: func.func @tile_scalar(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>, %[[S:\w+]]: f32, %[[I:\w+]]: !pypto.tile<32xi32, vec>, %[[N:\w+]]: i32) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.adds %[[X]], %[[S]] : !pypto.tile<64x64xf32, vec>, f32
// CHECK-NEXT:    %{{\w+}} = pypto.tile.subs %[[X]], %[[S]] : !pypto.tile<64x64xf32, vec>, f32
// CHECK-NEXT:    %{{\w+}} = pypto.tile.muls %[[X]], %[[S]] : !pypto.tile<64x64xf32, vec>, f32
// CHECK-NEXT:    %{{\w+}} = pypto.tile.divs %[[X]], %[[S]] : !pypto.tile<64x64xf32, vec>, f32
// CHECK-NEXT:    %{{\w+}} = pypto.tile.maxs %[[X]], %[[S]] : !pypto.tile<64x64xf32, vec>, f32
// CHECK-NEXT:    %{{\w+}} = pypto.tile.mins %[[I]], %[[N]] : !pypto.tile<32xi32, vec>, i32

func.func @unary(%x: !pypto.tile<64x64xf32, vec>) {
  %exp = pypto.tile.exp %x : !pypto.tile<64x64xf32, vec>
  %neg = pypto.tile.neg %x : !pypto.tile<64x64xf32, vec>
  %abs = pypto.tile.abs %x : !pypto.tile<64x64xf32, vec>
  %sqrt = pypto.tile.sqrt %x : !pypto.tile<64x64xf32, vec>
  %rsqrt = pypto.tile.rsqrt %x : !pypto.tile<64x64xf32, vec>
  %recip = pypto.tile.recip %x : !pypto.tile<64x64xf32, vec>
  %relu = pypto.tile.relu %x : !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK-LABEL: func.func @unary(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.exp %[[X]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.neg %[[X]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.abs %[[X]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.sqrt %[[X]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.rsqrt %[[X]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.recip %[[X]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.relu %[[X]] : !pypto.tile<64x64xf32, vec>

func.func @cast(%x: !pypto.tile<64x64xf32, vec>, %acc: !pypto.tile<16x16xi32, acc>) {
  %bf = pypto.tile.cast %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x64xbf16, vec>
  %f = pypto.tile.cast %acc : !pypto.tile<16x16xi32, acc> -> !pypto.tile<16x16xf16, acc>
  func.return
}
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>, %[[ACC:\w+]]: !pypto.tile<16x16xi32, acc>) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.cast %[[X]] : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x64xbf16, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.cast %[[ACC]] : !pypto.tile<16x16xi32, acc> -> !pypto.tile<16x16xf16, acc>

func.func @row_ops(%x: !pypto.tile<64x64xf32, vec>) {
  %sum = pypto.tile.row_sum %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
  %max = pypto.tile.row_max %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
  %add = pypto.tile.row_expand_add %x, %sum : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
  %sub = pypto.tile.row_expand_sub %x, %max : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
  %mul = pypto.tile.row_expand_mul %x, %sum : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
  %div = pypto.tile.row_expand_div %x, %sum : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK-LABEL: func.func @row_ops(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>) {
// CHECK-NEXT:    %[[SUM:\w+]] = pypto.tile.row_sum %[[X]] : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
// CHECK-NEXT:    %[[MAX:\w+]] = pypto.tile.row_max %[[X]] : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.row_expand_add %[[X]], %[[SUM]] : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.row_expand_sub %[[X]], %[[MAX]] : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.row_expand_mul %[[X]], %[[SUM]] : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.row_expand_div %[[X]], %[[SUM]] : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, vec>

// The scratch tile PyPTO's row reductions work in: optional, any larger one.
func.func @row_scratch(%x: !pypto.tile<64x64xf32, vec>, %tmp: !pypto.tile<64x128xf32, vec>) {
  %sum = pypto.tile.row_sum %x, %x : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
  %max = pypto.tile.row_max %x, %tmp {keep} : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x128xf32, vec> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK-LABEL: func.func @row_scratch(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>, %[[TMP:\w+]]: !pypto.tile<64x128xf32, vec>) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.row_sum %[[X]], %[[X]] : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.row_max %[[X]], %[[TMP]] {keep} : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x128xf32, vec> -> !pypto.tile<64x1xf32, vec>

func.func @full(%s: f32, %b: i1) {
  %t = pypto.tile.full %s : f32 -> !pypto.tile<64x64xf32, vec>
  %z = pypto.tile.full %s : f32 -> !pypto.tile<16x256xf32, acc>
  %m = pypto.tile.full %b : i1 -> !pypto.tile<8xi1, vec>
  func.return
}
// CHECK-LABEL: func.func @full(
// CHECK-SAME:      %[[S:\w+]]: f32, %[[B:\w+]]: i1) {
// CHECK-NEXT:    %{{\w+}} = pypto.tile.full %[[S]] : f32 -> !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.full %[[S]] : f32 -> !pypto.tile<16x256xf32, acc>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.full %[[B]] : i1 -> !pypto.tile<8xi1, vec>

func.func @cross_core(%t: !pypto.tile<16x64xf32, vec>) {
  pypto.tile.tpush_to_aiv %t : !pypto.tile<16x64xf32, vec>
  pypto.tile.tpush_to_aic %t : !pypto.tile<16x64xf32, vec>
  %a = pypto.tile.tpop_from_aic : !pypto.tile<16x64xf32, vec>
  %b = pypto.tile.tpop_from_aiv {tag} : !pypto.tile<16x64xf32, vec>
  pypto.tile.tpush_to_aiv %t {split = 1 : i64} : !pypto.tile<16x64xf32, vec>
  %c = pypto.tile.tpop_from_aic {split = 4 : i64} : !pypto.tile<16x64xf32, vec>
  func.return
}
// CHECK-LABEL: func.func @cross_core(
// CHECK-SAME:      %[[T:\w+]]: !pypto.tile<16x64xf32, vec>) {
// CHECK-NEXT:    pypto.tile.tpush_to_aiv %[[T]] : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:    pypto.tile.tpush_to_aic %[[T]] : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.tpop_from_aic : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.tpop_from_aiv {tag} : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:    pypto.tile.tpush_to_aiv %[[T]] {split = 1 : i64} : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.tpop_from_aic {split = 4 : i64} : !pypto.tile<16x64xf32, vec>
