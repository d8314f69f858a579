// ONNX TensorProtos (float32, raw_data) read and written in a few lines, so the reference scripts under
// tests/onnx need nothing but onnxruntime-node: dims = field 1, data_type = 2, name = 8, raw_data = 9.
import fs from 'node:fs';

function readVarint(buf, pos) {
  let value = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [value, pos];
    shift += 7n;
  }
}

export function readTensor(file) {
  const buf = fs.readFileSync(file);
  const dims = [];
  let dataType = 0, raw = null;
  for (let pos = 0; pos < buf.length;) {
    let key, v, len;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      [v, pos] = readVarint(buf, pos);
      if (field === 1) dims.push(Number(v));
      if (field === 2) dataType = Number(v);
    } else if (wire === 2) {
      [len, pos] = readVarint(buf, pos);
      const end = pos + Number(len);
      if (field === 1) while (pos < end) { [v, pos] = readVarint(buf, pos); dims.push(Number(v)); }
      if (field === 9) raw = buf.subarray(pos, end);
      pos = end;
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else throw new Error(`${file}: unexpected wire type ${wire}`);
  }
  if (dataType !== 1 || !raw) throw new Error(`${file}: expected a float32 TensorProto with raw_data`);
  const data = new Float32Array(raw.byteLength / 4);
  for (let i = 0; i < data.length; ++i) data[i] = raw.readFloatLE(i * 4);
  return { dims, data };
}

function writeVarint(out, value) {
  let v = BigInt(value);
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? b | 0x80 : b);
  } while (v);
}

export function writeTensor(file, name, dims, data) {
  const head = [];
  for (const d of dims) { writeVarint(head, (1 << 3) | 0); writeVarint(head, d); }
  writeVarint(head, (2 << 3) | 0); writeVarint(head, 1);  // FLOAT
  const nameBytes = Buffer.from(name, 'utf8');
  writeVarint(head, (8 << 3) | 2); writeVarint(head, nameBytes.length);
  const raw = Buffer.alloc(data.length * 4);
  data.forEach((x, i) => raw.writeFloatLE(x, i * 4));
  const rawHead = [];
  writeVarint(rawHead, (9 << 3) | 2); writeVarint(rawHead, raw.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from(head), nameBytes, Buffer.from(rawHead), raw]));
}
