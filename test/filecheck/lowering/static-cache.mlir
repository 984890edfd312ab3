// RUN: ge-opt %s -p ge-O3 | filecheck %s --check-prefix=GE
// RUN: ge-opt %s -p ge-O3,lower-to-ascend,task-parallel,memory-reuse,verify-plan | filecheck %s

// A decode step into a static KV cache: test/models/static_cache.py (HF's
// StaticCache pattern: the cache is a module buffer written with index_copy_
// and index_put_), imported with `ge-import test/models/static_cache.py:make`.
// The buffers became the last arguments (ge.state_buffers) and the writes
// ge.scatter_update, which the GE passes keep.
// GE-LABEL: func.func @main(
// GE-SAME:      %key_cache: tensor<1x2x4x4xf32>, %value_cache: tensor<1x2x4x4xf32>
// GE-SAME:      ge.state_buffers = ["key_cache", "value_cache"]
// GE:         %index_copy_ = ge.scatter_update %key_cache[%cache_position], %{{.*}} {{{.*}}dim = 2 : i64} : tensor<1x2x4x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32> -> tensor<1x2x4x4xf32>
// GE:         %index_put_ = ge.scatter_update %value_cache[%cache_position], %{{.*}} {{{.*}}dim = 2 : i64}

// Lowered, each update is a task that writes the argument itself: no arena
// buffer holds the cache, readers read the argument after the write (task
// order and events), and the plan verifies.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %key_cache: memref<1x2x4x4xf32>, %value_cache: memref<1x2x4x4xf32>
// CHECK:         ascend.task "scatter_update_0" {{.*}} ins(%key_cache, %cache_position, %{{.*}}) outs(%key_cache : memref<1x2x4x4xf32>)
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:      ge.scatter_update
// CHECK:         ascend.record_event {event = [[K:[0-9]+]] : i64, stream = 0 : i64}
// CHECK:         ascend.task "scatter_update_1" {{.*}}stream = [[S:[0-9]+]] : i64} {{.*}} outs(%value_cache : memref<1x2x4x4xf32>)
// CHECK:         ascend.wait_event {event = [[K]] : i64, stream = [[S]] : i64}
// CHECK:         ascend.task "attention_{{.*}}stream = [[S]] : i64} ins({{.*}}%key_cache{{.*}}%value_cache :
// CHECK-NOT:     %key_cache = ascend.buffer
// CHECK-NOT:     %value_cache = ascend.buffer
// CHECK:         func.return

builtin.module {
  func.func @main(%x: tensor<1x1x8xf32>, %cache_position: tensor<1xi64>, %key_cache: tensor<1x2x4x4xf32>, %value_cache: tensor<1x2x4x4xf32>) -> tensor<1x1x8xf32> attributes {ge.state_buffers = ["key_cache", "value_cache"]} {
    %qkv_bias = ge.const dense<[-0.249388888, 0.0157684423, -0.249231845, -0.194625542, -0.206017494, 0.120825104, -0.210687116, -0.00771354744, 0.0148733277, 0.227908656, -0.267258108, -0.242718726, -0.205294847, 0.247463822, -0.127090067, 0.29821828, 0.127847567, 0.0447690561, -0.00263185985, -0.0698909834, 0.0443590507, -0.0807320327, -0.00248421961, 0.0451109521]> : tensor<24xf32>
    %qkv_weight = ge.const dense<"0x22792DBB9C36423EB1FC94BE1D3885BED6700BBEAB2AC23D578AE5BB40878F3EDE8300BD9799BF3D5DD3DABD1B548EBDC2EFACBE90C56FBE9F3D15BE4C94563C6B200F3E403B593EDE7075BE86A71DBEA77F033EF750963EE70395BD7A75873E1E6B69BD353C193DA1E8A33E20EDA7BEC5EA63BEAC4FB7BD661F0DBE9E669C3E85AA6ABE86A826BE53EF7CBE2089A9BE2D5653BE979A9B3E5E8C213E5F782F3E4952983C7B9C39BE6E01753D4D04A9BE68CC82BE4CA43ABE876C643E5D45543EF68F20BEF20251BCB38B673E12F5B33ECBAF0F3EA6A2433DF2BD723E522B55BE70ED863D65588CBE8AEC7ABEF2053BBE10D0233EFD98113E5B7456BEB8BFDA3DC5BF463E43C836BDCF2B5D3CAAC5A73DAE99603E4ED0AD3E6D7F8BBE1CAD04BEE7480E3EC4FB953E3C869D3E40B99F3E171A903D49699DBE2838053D4B7E62BEA4B3A8BE96D5A03ECBA3893E6492B4BEEC86873DC6F473BD5C4F6EBDC7B925BE65390B3ED06F56BE61B8043EFD15373E2B96813ECB5E073E4529B3BE76DA6ABE77C5343EE58C973DD5358DBE0B7850BE374BAA3EB8F2733EA3DB1DBE3F3DB6BD4D70ACBE123CD0BB775188BE67A18BBEE4959FBCEA6E593D0B4414BE5DD3563E8F505CBE6440A43EE51A783E88A698BE2536B4BD67B0823C8F49533D86BBAB3DFF120E3E4A7DAD3C2AA630BE0E502B3E81A4ADBE2E9556BE1842B5BD975A30BE714EFDBD0C5E94BEB0059ABDB5C69A3D16DB6BBE02A394BC3595813EE4DE14BD5DFD203C86DCF9BC2E8A923DCF32663E4A78AB3E30EA653EB9DCAB3E4477D1BC129DA2BE61A22BBE9783763EC23316BB33F333BE9DB78ABE4668A9BE24C898BE97DE92BD4F8B463EA4BB433EB094AEBE4ED5613E3BA68DBED01399BDF9CB12BEE6778BBDD42A8EBD0C70A2BE884C9CBE439B62BD88D2953B0F7724BE3361083E8FEDA2BEC476C3BC22319F3E34AC13BE0576A33E191D033EE55CA3BE970F653EEA1B27BDD59D21BEB1C0903EE64792BEE6641B3D619997BDA844813E4A1FCA3D26F62D3EE2B6FF3D4E1FAEBD044798BDB72C95BE252B443EB3B98F3E42B7773E"> : tensor<24x8xf32>
    %arange = ge.const dense<[0, 1, 2, 3]> : tensor<4xi64>
    %cst = ge.const dense<5.000000e-01> : tensor<f32>
    %cst_1 = ge.const dense<0xff800000> : tensor<f32>
    %out_bias = ge.const dense<[0.0112636182, -0.237899616, -0.28578487, 0.281811178, 0.0575721711, 0.293316573, -0.118525453, 0.104141064]> : tensor<8xf32>
    %out_weight = ge.const dense<[[-0.276551276, -0.185308442, 0.285491794, -0.286925077, -0.0253873225, 0.349748701, 0.127716586, 0.0100101717], [-0.306392878, 0.175142527, -0.251829267, -0.100361168, -0.118622936, -0.0523567945, 0.00386726833, 0.291613489], [0.044137191, 0.316675216, 0.21627301, -0.223521382, 0.158570141, -0.249925494, -0.14984481, 0.103988074], [0.116740532, 0.265245676, -0.113814443, 5.659900e-04, 0.182017609, -0.341918707, 0.255612254, -0.29236123], [4.872850e-03, -0.0601100028, -0.186207011, 0.0467295162, 0.292359918, -0.103350565, -0.209902555, -0.130757764], [-0.350423843, 0.159591869, -0.169798866, -0.235940412, -0.203682601, 0.203277662, 0.187232569, 0.27135995], [0.128241986, -0.118072584, -0.0987998396, 0.104450256, 0.290633142, 0.0961284041, -0.167282149, -0.166197449], [-0.334273785, 7.638450e-02, -0.198407978, -0.315219641, 0.310022652, -0.229601532, -0.0402207784, 0.101290762]]> : tensor<8x8xf32>
    %linear = ge.linear %x, %qkv_weight, %qkv_bias : tensor<1x1x8xf32>, tensor<24x8xf32>, tensor<24xf32> -> tensor<1x1x24xf32>
    %view = ge.reshape %linear : tensor<1x1x24xf32> -> tensor<1x1x3x2x4xf32>
    %transpose = ge.transpose %view {permutation = array<i64: 0, 3, 2, 1, 4>} : tensor<1x1x3x2x4xf32> -> tensor<1x2x3x1x4xf32>
    %unbind_part0 = ge.slice %transpose {dim = 2 : i64, start = 0 : i64, end = 1 : i64, step = 1 : i64} : tensor<1x2x3x1x4xf32> -> tensor<1x2x1x1x4xf32>
    %unbind_item0 = ge.reshape %unbind_part0 : tensor<1x2x1x1x4xf32> -> tensor<1x2x1x4xf32>
    %unbind_part1 = ge.slice %transpose {dim = 2 : i64, start = 1 : i64, end = 2 : i64, step = 1 : i64} : tensor<1x2x3x1x4xf32> -> tensor<1x2x1x1x4xf32>
    %unbind_item1 = ge.reshape %unbind_part1 : tensor<1x2x1x1x4xf32> -> tensor<1x2x1x4xf32>
    %unbind_part2 = ge.slice %transpose {dim = 2 : i64, start = 2 : i64, end = 3 : i64, step = 1 : i64} : tensor<1x2x3x1x4xf32> -> tensor<1x2x1x1x4xf32>
    %unbind_item2 = ge.reshape %unbind_part2 : tensor<1x2x1x1x4xf32> -> tensor<1x2x1x4xf32>
    %index_copy_ = ge.scatter_update %key_cache[%cache_position], %unbind_item1 {dim = 2 : i64} : tensor<1x2x4x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32> -> tensor<1x2x4x4xf32>
    %view_1 = ge.flatten %unbind_item2 {start_dim = 0 : i64, end_dim = 1 : i64} : tensor<1x2x1x4xf32> -> tensor<2x1x4xf32>
    %index_put__expand = ge.expand %view_1 : tensor<2x1x4xf32> -> tensor<1x2x1x4xf32>
    %index_put_ = ge.scatter_update %value_cache[%cache_position], %index_put__expand {dim = 2 : i64} : tensor<1x2x4x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32> -> tensor<1x2x4x4xf32>
    %le = ge.compare %arange, %cache_position {predicate = "le"} : tensor<4xi64>, tensor<1xi64> -> tensor<4xi1>
    %view_2 = ge.reshape %le : tensor<4xi1> -> tensor<1x1x1x4xi1>
    %scaled_dot_product_attention_kt = ge.transpose %index_copy_ {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
    %scaled_dot_product_attention_qk = ge.matmul %unbind_item0, %scaled_dot_product_attention_kt : tensor<1x2x1x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x1x4xf32>
    %scaled_dot_product_attention_scaled = ge.mul %scaled_dot_product_attention_qk, %cst : tensor<1x2x1x4xf32>, tensor<f32> -> tensor<1x2x1x4xf32>
    %scaled_dot_product_attention_masked = ge.where %view_2, %scaled_dot_product_attention_scaled, %cst_1 : tensor<1x1x1x4xi1>, tensor<1x2x1x4xf32>, tensor<f32> -> tensor<1x2x1x4xf32>
    %scaled_dot_product_attention_softmax = ge.softmax %scaled_dot_product_attention_masked {dim = -1 : i64, safe} : tensor<1x2x1x4xf32>
    %scaled_dot_product_attention = ge.matmul %scaled_dot_product_attention_softmax, %index_put_ : tensor<1x2x1x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x1x4xf32>
    %transpose_1 = ge.transpose %scaled_dot_product_attention {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x2x1x4xf32> -> tensor<1x1x2x4xf32>
    %reshape = ge.flatten %transpose_1 {start_dim = 2 : i64, end_dim = -1 : i64} : tensor<1x1x2x4xf32> -> tensor<1x1x8xf32>
    %linear_1 = ge.linear %reshape, %out_weight, %out_bias : tensor<1x1x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<1x1x8xf32>
    func.return %linear_1 : tensor<1x1x8xf32>
  }
}
