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
// raw_data), read and written by ../tensor_proto.mjs so the script needs nothing else.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTensor, writeTensor } from '../tensor_proto.mjs';

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
