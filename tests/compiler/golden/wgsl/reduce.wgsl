@group(0) @binding(0) var<storage, read_write> data0: array<f32>;
@group(0) @binding(1) var<storage, read> data1: array<f32>;

@compute @workgroup_size(16, 1, 1)
fn r_16_40(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let lidx0 = i32(lid.x);
  var acc0: f32 = 0.0f;
  let v0 = (lidx0 * 40i);
  for (var ridx0: i32 = 0i; ridx0 < 40i; ridx0++) {
    let v1 = (ridx0 + v0);
    let v2 = data1[v1];
    let v3 = (acc0 + v2);
    acc0 = v3;
  }
  data0[lidx0] = acc0;
}
