// Makes the audio tests/onnx/silero_vad_test.cc feeds Silero VAD v4 ("legacy") and v5, and ONNX Runtime's
// outputs on it, chunk after chunk with the recurrent state carried as a VAD carries it.
//
//   node tests/onnx/silero_vad/make_reference.mjs                 # rewrites tests/onnx/silero_vad/*.pb
//   node tests/onnx/silero_vad/make_reference.mjs --ort DIR --models DIR
//
// --ort defaults to where tools/setup.sh npm-installs onnxruntime-node 1.30 (${XDG_CACHE_HOME:-~/.cache}/
// tinygrad-cc-peers/onnxruntime-node), --models to where it puts the models (.../tinygrad-cc-models).
//
// The audio is synthetic and deterministic (a seeded generator, no file): 0.1 s of near silence, 0.15 s of a
// 440 Hz tone, then 0.35 s of a voiced, speech-like signal (harmonics of a wavering 140 Hz pitch shaped by
// two formants, in 4 Hz syllables, over a little noise), all over a noise floor of 1e-3. The floor matters:
// v4 compresses its spectrum as log(1 + 2^20 |STFT|), and a clean tone leaves STFT bins whose magnitude is
// float32 rounding noise (~1e-9), which that turns into ~1e-3 differences between any two correct
// implementations that sum in another order. Each model sees it at 16 kHz and at 8 kHz, which
// take the two branches of its If nodes on `sr`, in the frames @ricky0123/vad-web gives it: v4 takes
// 1536 samples at 16 kHz (768 at 8 kHz) and its h, c; v5 takes 512 samples (256) after the last 64 (32) of
// the previous frame, its "context" (zeros before the first), and its one state. States start at zero.
//
// Written per case, as ONNX TensorProtos (float32, raw_data) stacked over the frames:
//   <case>_input.pb            [frames, 1, samples]   what `input` is fed, context included
//   <case>_ort_<output>.pb     [frames, ...]          each output of the model after each frame
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTensor } from '../tensor_proto.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = 0.6;
const MODELS = [
  { name: 'legacy', file: 'silero_vad_legacy.onnx', frameAt16k: 1536, contextAt16k: 0,
    states: { h: 'hn', c: 'cn' }, stateShape: [2, 1, 64] },
  { name: 'v5', file: 'silero_vad_v5.onnx', frameAt16k: 512, contextAt16k: 64,
    states: { state: 'stateN' }, stateShape: [2, 1, 128] },
];
const RATES = [16000, 8000];

function parseArgs(argv) {
  const cache = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || os.tmpdir(), '.cache');
  const args = {
    ort: path.join(cache, 'tinygrad-cc-peers', 'onnxruntime-node'),
    models: process.env.TG_MODEL_DIR || path.join(cache, 'tinygrad-cc-models'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) throw new Error('usage: make_reference.mjs [--ort DIR] [--models DIR]');
    args[key] = argv[i + 1];
  }
  return args;
}

// mulberry32: a small seeded generator, so the noise is the same on every machine and every Node.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function audio(rate) {
  const uniform = random(rate), noise = () => 2 * uniform() - 1;
  const out = new Float32Array(Math.round(SECONDS * rate));
  const formant = (f, centre, width) => Math.exp(-(((f - centre) / width) ** 2));
  let phase = 0;
  for (let i = 0; i < out.length; ++i) {
    const t = i / rate;
    let x = 1e-3 * noise();  // the room's noise floor, under everything
    if (t >= 0.1 && t < 0.25) {
      x += 0.3 * Math.sin(2 * Math.PI * 440 * t);
    } else if (t >= 0.25) {
      const f0 = 140 + 20 * Math.sin(2 * Math.PI * 3 * t);
      phase += 2 * Math.PI * f0 / rate;
      let voiced = 0;
      for (let k = 1; k * f0 < rate / 2 && k <= 30; ++k) {
        voiced += (formant(k * f0, 700, 250) + 0.6 * formant(k * f0, 1200, 300) + 0.05) * Math.sin(k * phase) / k;
      }
      const syllable = 0.5 * (1 - Math.cos(2 * Math.PI * 4 * (t - 0.25)));
      x += 0.5 * syllable * voiced + 0.02 * noise();
    }
    out[i] = x;
  }
  return out;
}

// The frames @ricky0123/vad-web feeds the model: `context` samples of the previous frame, then the frame.
function frames(signal, frame, context) {
  const n = Math.floor(signal.length / frame), width = context + frame;
  const data = new Float32Array(n * width);
  for (let f = 0; f < n; ++f) {
    for (let j = 0; j < width; ++j) {
      const src = f * frame - context + j;
      data[f * width + j] = src >= 0 ? signal[src] : 0;
    }
  }
  return { dims: [n, 1, width], data, count: n, width };
}

async function runCase(ort, session, model, rate) {
  const scale = rate / 16000;
  const input = frames(audio(rate), model.frameAt16k * scale, model.contextAt16k * scale);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), []);
  const stateSize = model.stateShape.reduce((a, b) => a * b, 1);
  let states = Object.fromEntries(Object.keys(model.states).map(
    (k) => [k, new ort.Tensor('float32', new Float32Array(stateSize), model.stateShape)]));
  const collected = {};
  for (let f = 0; f < input.count; ++f) {
    const x = input.data.slice(f * input.width, (f + 1) * input.width);
    const out = await session.run({ input: new ort.Tensor('float32', x, [1, input.width]), sr, ...states });
    for (const name of session.outputNames) {
      collected[name] ??= { dims: [input.count, ...out[name].dims.map(Number)], data: [] };
      collected[name].data.push(...out[name].data);
    }
    states = Object.fromEntries(Object.entries(model.states).map(([i, o]) => [i, out[o]]));
  }
  const tag = `${model.name}_${rate / 1000}k`;
  writeTensor(path.join(here, `${tag}_input.pb`), 'input', input.dims, input.data);
  for (const [name, t] of Object.entries(collected)) {
    writeTensor(path.join(here, `${tag}_ort_${name}.pb`), name, t.dims, Float32Array.from(t.data));
  }
  const p = collected.output.data.map((v) => v.toFixed(3)).join(' ');
  console.log(`${tag}: ${input.count} frames of ${input.width} samples; p(speech) per frame: ${p}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = createRequire(path.join(path.resolve(args.ort), 'package.json'))('onnxruntime-node');
  for (const model of MODELS) {
    const modelPath = path.join(args.models, model.file);
    if (!fs.existsSync(modelPath)) throw new Error(`${modelPath} is missing: run tools/setup.sh`);
    const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ['cpu'] };
    const session = await ort.InferenceSession.create(modelPath, options);
    for (const rate of RATES) await runCase(ort, session, model, rate);
  }
  console.log(`onnxruntime-node ${ort.env.versions?.common ?? ''}`);
}

main().catch((e) => { console.error(`make_reference: ${e.message}`); process.exit(1); });
