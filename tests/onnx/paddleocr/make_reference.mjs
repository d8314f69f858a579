// Runs the two PaddleOCR models with ONNX Runtime on the checked-in inputs and writes its outputs as the
// reference data tests/onnx/paddleocr_test.cc matches; with --bench, times ONNX Runtime instead.
//
//   mkdir -p /tmp/ort && (cd /tmp/ort && npm install --ignore-scripts onnxruntime-node@1.30.0)
//   node tests/onnx/paddleocr/make_reference.mjs --ort /tmp/ort            # rewrites *_ort_output.pb
//   node tests/onnx/paddleocr/make_reference.mjs --ort /tmp/ort --bench 50 --threads 1
//
// --models defaults to the cache tools/setup.sh fills (${XDG_CACHE_HOME:-$HOME/.cache}/tinygrad-cc-models).
// onnxruntime-node is installed with --ignore-scripts because its install script downloads from outside npm;
// the CPU build it ships in the npm tarball is all this needs. The .pb files are ONNX TensorProtos (float,
// raw_data), read and written by the few lines below so the script needs nothing else.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODELS = [
  { name: 'det', file: 'ch_PP-OCRv4_det_infer.onnx' },
  { name: 'cls', file: 'ch_ppocr_mobile_v2.0_cls_infer.onnx' },
];

function parseArgs(argv) {
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || os.tmpdir(), '.cache');
  const args = { ort: null, models: path.join(cacheRoot, 'tinygrad-cc-models'), bench: 0, threads: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) throw new Error(`usage: --ort DIR [--models DIR] [--bench N --threads T]`);
    args[key] = ['bench', 'threads'].includes(key) ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.ort) throw new Error('--ort DIR: the directory onnxruntime-node was npm-installed into');
  return args;
}

// --- TensorProto (float32 only): dims = field 1, data_type = 2, name = 8, raw_data = 9 ---
function readVarint(buf, pos) {
  let value = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [value, pos];
    shift += 7n;
  }
}

function readTensor(file) {
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

function writeTensor(file, name, dims, data) {
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

function summarize(name, t) {
  let lo = Infinity, hi = -Infinity, above = 0;
  for (const x of t.data) { lo = Math.min(lo, x); hi = Math.max(hi, x); if (x > 0.5) ++above; }
  return `${name} [${t.dims}] min ${lo.toPrecision(4)} max ${hi.toPrecision(4)} (> 0.5: ${above} of ${t.data.length})`;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = createRequire(path.join(path.resolve(args.ort), 'package.json'))('onnxruntime-node');
  for (const m of MODELS) {
    const modelPath = path.join(args.models, m.file);
    if (!fs.existsSync(modelPath)) throw new Error(`${modelPath} is missing: run tools/setup.sh`);
    const options = { intraOpNumThreads: args.threads, interOpNumThreads: 1, executionProviders: ['cpu'] };
    const session = await ort.InferenceSession.create(modelPath, options);
    const input = readTensor(path.join(here, `${m.name}_input.pb`));
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', input.data, input.dims) };
    const outName = session.outputNames[0];
    let result = await session.run(feeds);
    if (args.bench > 0) {
      const ms = [];
      for (let i = 0; i < args.bench; ++i) {
        const t0 = process.hrtime.bigint();
        result = await session.run(feeds);
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      ms.sort((a, b) => a - b);
      console.log(`${m.name}: onnxruntime-node ${ort.env.versions?.common ?? ''} ${args.threads} thread(s), ` +
                  `${args.bench} runs: median ${ms[ms.length >> 1].toFixed(3)} ms (min ${ms[0].toFixed(3)}, ` +
                  `max ${ms[ms.length - 1].toFixed(3)})`);
      continue;
    }
    const out = { dims: result[outName].dims.map(Number), data: result[outName].data };
    writeTensor(path.join(here, `${m.name}_ort_output.pb`), outName, out.dims, out.data);
    console.log(summarize(`${m.name} ${outName}`, out));
    if (m.name === 'cls') {
      for (let b = 0; b < out.dims[0]; ++b) console.log(`  cls image ${b}: p(0 deg) ${out.data[2 * b].toFixed(4)} p(180 deg) ${out.data[2 * b + 1].toFixed(4)}`);
    }
  }
}

main().catch((e) => { console.error(`make_reference: ${e.message}`); process.exit(1); });
