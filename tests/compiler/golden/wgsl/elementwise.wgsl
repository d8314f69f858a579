@group(0) @binding(0) var<storage, read_write> data0: array<f32>;
@group(0) @binding(1) var<storage, read> data1: array<f32>;
@group(0) @binding(2) var<storage, read> data2: array<f32>;

@compute @workgroup_size(32, 1, 1)
fn E_64_32(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let lidx0 = i32(lid.x);
  let gidx0 = i32(gid.x);
  let v0 = (gidx0 * 32i);
  let v1 = (lidx0 + v0);
  let v2 = data1[v1];
  let v3 = data2[lidx0];
  let v4 = (v2 * v3);
  let v5 = (v4 + 1.0f);
  let v6 = (0.0f < v5);
  let v7 = select(0.0f, v5, v6);
  let v8 = sqrt(v3);
  let v9 = (-v8);
  let v10 = (v7 + v9);
  let v11 = (v2 * v2);
  let v12 = (v11 + 1.0f);
  let v13 = (v10 / v12);
  data0[v1] = v13;
}
