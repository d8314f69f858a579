@group(0) @binding(0) var<storage, read_write> data0: array<f32>;
@group(0) @binding(1) var<storage, read> data1: array<f32>;

@compute @workgroup_size(1, 1, 1)
fn E_8_9(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let gidx0 = i32(gid.x);
  let gidx1 = i32(gid.y);
  let v0 = (gidx1 * 9i);
  let v1 = (gidx0 + v0);
  let v2 = (gidx1 * (-1i));
  let v3 = ((-7i) < v2);
  let v4 = (v2 < (-1i));
  let v5 = (v3 & v4);
  let v6 = (gidx0 < 6i);
  let v7 = (v5 & v6);
  let v8 = (gidx1 * (-6i));
  let v9 = (v8 + gidx0);
  let v10 = (v9 + 36i);
  let v11 = select(0.0f, data1[v10], v7);
  let v12 = select(0.0f, v11, v7);
  data0[v1] = v12;
}
