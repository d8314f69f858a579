// ONNX Runtime peer of W11: PaddleOCR's PP-OCRv4 detector and direction classifier, timed with
// onnxruntime-node (CPU execution provider) on the inputs tests/onnx/paddleocr_test uses. Writes the peers'
// JSON format (../shared/peers/common.py's Report: {"peer", "meta", "rows"}); a missing onnxruntime-node or
// model gives a row with a "skipped" reason, never a figure.
//
//   node tools/bench/peer_ort.mjs [--json out.json] [--threads 1,2] [--reps 10] [--ort DIR] [--models DIR]
//
// --ort is where tools/setup.sh npm-installs onnxruntime-node 1.30 (${XDG_CACHE_HOME:-~/.cache}/
// tinygrad-cc-peers/onnxruntime-node); --models where it puts the models (.../tinygrad-cc-models).
// Timing as common.py's bench(): the first run (here: session creation plus the first run), warm-up - 1
// more, then --reps timed runs; the row's value is the median in ms.
//
// The cold starts beside the suite's W8d and W8c: session creation plus the first run of the detector, each
// in a fresh node process (this script re-run with --child), the input read before the timer as in ours;
// W8c's peer loads the model ONNX Runtime saved already optimized (optimizedModelFilePath) with graph
// optimizations off, the nearest thing it has to a saved tg::Jit. One warm-up child, then 5 timed.
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const inputs = path.join(here, '..', '..', 'tests', 'onnx', 'paddleocr');
const WARMUP = 2;
const COLD_WARMUP = 1, COLD_REPS = 5;
const COLD_MODEL = 'W11_ocr_det';
const MODELS = [
  { key: 'W11_ocr_det', file: 'ch_PP-OCRv4_det_infer.onnx', input: 'det_input.pb' },
  { key: 'W11_ocr_cls', file: 'ch_ppocr_mobile_v2.0_cls_infer.onnx', input: 'cls_input.pb' },
];

function parseArgs(argv) {
  const cache = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || os.tmpdir(), '.cache');
  const args = {
    json: null, threads: '1,2', reps: 10, child: null, model: null, input: null,
    ort: path.join(cache, 'tinygrad-cc-peers', 'onnxruntime-node'),
    models: process.env.TG_MODEL_DIR || path.join(cache, 'tinygrad-cc-models'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) {
      throw new Error('usage: peer_ort.mjs [--json F] [--threads 1,2] [--reps N] [--ort DIR] [--models DIR]\n' +
                      '       peer_ort.mjs --child onnx|optimized --model F --input F --threads N [--ort DIR]');
    }
    args[key] = key === 'reps' ? Number(argv[i + 1]) : argv[i + 1];
  }
  args.threads = args.threads.split(',').map(Number);
  return args;
}

// A float32 ONNX TensorProto with raw_data (what tests/onnx/paddleocr/make_inputs.py writes): dims = field 1,
// data_type = 2, raw_data = 9.
function readTensor(file) {
  const buf = fs.readFileSync(file);
  const varint = (pos) => {
    let value = 0, scale = 1, b;
    do { b = buf[pos++]; value += (b & 0x7f) * scale; scale *= 128; } while (b & 0x80);
    return [value, pos];
  };
  const dims = [];
  let dataType = 0, raw = null;
  for (let pos = 0, key, v, len; pos < buf.length;) {
    [key, pos] = varint(pos);
    const field = Math.floor(key / 8), wire = key % 8;
    if (wire === 0) {
      [v, pos] = varint(pos);
      if (field === 1) dims.push(v);
      if (field === 2) dataType = v;
    } else if (wire === 2) {
      [len, pos] = varint(pos);
      if (field === 1) for (const end = pos + len; pos < end;) { [v, pos] = varint(pos); dims.push(v); }
      else { if (field === 9) raw = buf.subarray(pos, pos + len); pos += len; }
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else throw new Error(`${file}: unexpected wire type ${wire}`);
  }
  if (dataType !== 1 || !raw) throw new Error(`${file}: expected a float32 TensorProto with raw_data`);
  return { dims, data: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)) };
}

function loadOrt(dir) {
  try {
    return createRequire(path.join(path.resolve(dir), 'package.json'))('onnxruntime-node');
  } catch (e) {
    return null;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), n = s.length;
  return n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const cpuSeconds = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const now = () => Number(process.hrtime.bigint()) / 1e9;

async function timeModel(ort, modelPath, input, threads, reps) {
  const t0 = now();
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(threads));
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', input.data, input.dims) };
  await session.run(feeds);
  const first = now() - t0;
  for (let i = 1; i < WARMUP; ++i) await session.run(feeds);
  const times = [];
  const c0 = cpuSeconds(), w0 = now();
  for (let i = 0; i < reps; ++i) {
    const s = now();
    await session.run(feeds);
    times.push(now() - s);
  }
  const effThreads = (cpuSeconds() - c0) / Math.max(now() - w0, 1e-9);
  await session.release?.();
  return { first_s: first, median_s: median(times), min_s: Math.min(...times), eff_threads: effThreads };
}

function sessionOptions(threads, optimization = 'all', savePath = undefined) {
  return {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionProviders: ['cpu'],
    graphOptimizationLevel: optimization, ...(savePath ? { optimizedModelFilePath: savePath } : {}),
  };
}

// A cold child: prints "cold_ms X" for session creation plus the first run.
async function runChild(ort, args) {
  const input = readTensor(args.input);
  const options = sessionOptions(args.threads[0], args.child === 'optimized' ? 'disabled' : 'all');
  const t0 = now();
  const session = await ort.InferenceSession.create(args.model, options);
  await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', input.data, input.dims) });
  console.log(`cold_ms ${((now() - t0) * 1e3).toFixed(3)}`);
}

function spawnCold(args, kind, model, input, threads) {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, '--child', kind, '--model', model, '--input', input,
    '--threads', String(threads), '--ort', args.ort], { encoding: 'utf8' });
  const m = /cold_ms ([0-9.]+)/.exec(r.stdout || '');
  if (r.status !== 0 || !m) throw new Error(`cold child (${kind}) failed: ${r.stderr || r.stdout}`);
  return Number(m[1]) / 1e3;
}

function timeCold(args, kind, model, input, threads) {
  const first = spawnCold(args, kind, model, input, threads);
  for (let i = 1; i < COLD_WARMUP; ++i) spawnCold(args, kind, model, input, threads);
  const times = [];
  for (let i = 0; i < COLD_REPS; ++i) times.push(spawnCold(args, kind, model, input, threads));
  return { value: median(times) * 1e3, unit: 'ms', first_s: first, median_s: median(times), min_s: Math.min(...times) };
}

async function addColdRows(ort, args, rows, modelPath, inputPath) {
  const optimized = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tg_ort_')), 'det.optimized.onnx');
  for (const threads of args.threads) {
    add(rows, `W8d_cold_ocr_det_${threads}T`, timeCold(args, 'onnx', modelPath, inputPath, threads));
    // Warnings off for the saver: ORT warns that an optimized model is for this machine only, which it is.
    const saver = await ort.InferenceSession.create(modelPath,
      { ...sessionOptions(threads, 'all', optimized), logSeverityLevel: 3 });
    await saver.release?.();
    add(rows, `W8c_cold_ocr_det_saved_jit_${threads}T`, timeCold(args, 'optimized', optimized, inputPath, threads));
  }
  fs.rmSync(path.dirname(optimized), { recursive: true, force: true });
}

function add(rows, key, row) {
  rows[key] = row;
  const cpu = row.eff_threads !== undefined ? ` cpu/wall=${row.eff_threads.toFixed(2)}` : '';
  const text = row.skipped !== undefined ? `skipped: ${row.skipped}`
    : `${row.value.toFixed(3)} ${row.unit}  first=${(row.first_s * 1e3).toFixed(1)}ms${cpu}`;
  console.log(`[ort] ${key.padEnd(28)} ${text}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt(args.ort);
  if (args.child) return runChild(ort, args);
  const meta = {
    onnxruntime: ort ? (ort.env?.versions?.common ?? 'unknown') : null, node: process.version,
    ort_dir: args.ort, models: args.models, reps: args.reps, warmup: WARMUP,
    configs: args.threads.map((n) => ({ tag: `_${n}T`, threads: n })),
  };
  console.log(`[ort] ${JSON.stringify(meta)}`);
  const rows = {};
  for (const m of MODELS) {
    for (const threads of args.threads) {
      const key = `${m.key}_${threads}T`;
      const modelPath = path.join(args.models, m.file), inputPath = path.join(inputs, m.input);
      if (!ort) add(rows, key, { unit: 'ms', skipped: `onnxruntime-node not installed in ${args.ort}: run tools/setup.sh` });
      else if (!fs.existsSync(modelPath)) add(rows, key, { unit: 'ms', skipped: `${modelPath} is absent: run tools/setup.sh` });
      else if (!fs.existsSync(inputPath)) add(rows, key, { unit: 'ms', skipped: `${inputPath} is absent` });
      else {
        const r = await timeModel(ort, modelPath, readTensor(inputPath), threads, args.reps);
        add(rows, key, { value: r.median_s * 1e3, unit: 'ms', ...r });
      }
    }
    if (m.key === COLD_MODEL && ort && fs.existsSync(path.join(args.models, m.file)))
      await addColdRows(ort, args, rows, path.join(args.models, m.file), path.join(inputs, m.input));
    if (m.key === 'W11_ocr_cls' && ort && fs.existsSync(path.join(args.models, m.file)))  // beside the suite's W8f
      for (const threads of args.threads)
        add(rows, `W8f_cold_ocr_cls_${threads}T`,
          timeCold(args, 'onnx', path.join(args.models, m.file), path.join(inputs, m.input), threads));
  }
  const out = { peer: 'ort', meta, rows };
  if (args.json) fs.writeFileSync(args.json, JSON.stringify(out, null, 1));
}

main().catch((e) => { console.error(`peer_ort: ${e.message}`); process.exit(1); });
