@group(0) @binding(0) var<storage, read_write> data0: array<f32>;
@group(0) @binding(1) var<storage, read> data1: array<f32>;

@compute @workgroup_size(1, 1, 1)
fn E_8_9(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let gidx0 = i32(gid.x);
  let gidx1 = i32(gid.y);
  let v0 = (gidx1 * 9i);
  let v1 = (gidx0 + v0);
  let v2 = (gidx1 * (-1i));
  let v3 = (v2 + 7i);
  let v4 = (0i < v3);
  let v5 = (v2 < (-1i));
  let v6 = (v4 & v5);
  let v7 = (gidx0 < 6i);
  let v8 = (v6 & v7);
  let v9 = (gidx1 * (-6i));
  let v10 = (v9 + gidx0);
  let v11 = (v10 + 36i);
  let v12 = select(0.0f, data1[v11], v8);
  let v13 = select(0.0f, v12, v8);
  data0[v1] = v13;
}
