// The parser of a student's own tensors (wasm/js/parse-tensor.js): a table of the forms people
// paste, what real PyTorch and NumPy print and save (Debian's python3-torch and its NumPy, in one
// Python process), and hostile text: each a value, a shape and a form, or a ParseError with its code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTensor, parseNpy, ParseError, LIMITS } from '../../wasm/js/parse-tensor.js';
import { runPrograms } from './pytorch.mjs';

const same = (got, want) => {
  assert.equal(got.length, want.length);
  want.forEach((w, i) => assert.ok(Object.is(got[i], w) || got[i] === w, `value ${i}: ${got[i]} is not ${w}`));
};

// [text, shape, values, form, dtype, resolution of value 0]
const FORMS = [
  ['tensor([[0.5000, 0.5000],\n        [0.2500, 0.7500]])', [2, 2], [0.5, 0.5, 0.25, 0.75], 'pytorch', 'float32', 5e-5],
  ['tensor([[0.5000, 0.5000]], dtype=torch.float64)', [1, 2], [0.5, 0.5], 'pytorch', 'float64', 5e-5],
  ['tensor([[0.5000, 0.5000]], grad_fn=<SoftmaxBackward0>)', [1, 2], [0.5, 0.5], 'pytorch', 'float32', 5e-5],
  ["tensor([[1.0000e+00, 2.5000e-04]], device='cuda:0', dtype=torch.float64, requires_grad=True)", [1, 2], [1, 2.5e-4], 'pytorch', 'float64', 5e-5],
  ['tensor([[1., 0.],\n        [0., 1.]], dtype=torch.double)', [2, 2], [1, 0, 0, 1], 'pytorch', 'float64', 0],
  ['tensor(3.3418)', [], [3.3418], 'pytorch', 'float32', 5e-5],
  ['tensor([nan, -inf, inf])', [3], [NaN, -Infinity, Infinity], 'pytorch', 'float32', 0],
  ['[NaN, -Infinity, Infinity]', [3], [NaN, -Infinity, Infinity], 'list', null, 0],
  ['tensor(True)', [], [1], 'pytorch', 'bool', 0],
  ['tensor([[ True, False]])', [1, 2], [1, 0], 'pytorch', 'bool', 0],
  ['torch.tensor([[1, 2]])', [1, 2], [1, 2], 'pytorch', 'int64', 0],
  ['array([[0.1, 0.2],\n       [0.3, 0.4]])', [2, 2], [0.1, 0.2, 0.3, 0.4], 'numpy', null, 0.05],
  ['array([[0.1, 0.2]], dtype=float32)', [1, 2], [0.1, 0.2], 'numpy', 'float32', 0.05],
  ['np.array([1.5, 2.5])', [2], [1.5, 2.5], 'numpy', null, 0.05],
  ['[[0.5 0.5]\n [0.25 0.75]]', [2, 2], [0.5, 0.5, 0.25, 0.75], 'numpy', null, 0.005],
  ['[[ 1.00000000e+00 -2.50000000e-01]]', [1, 2], [1, -0.25], 'numpy', null, 5e-9],
  ['[[0.1, 0.3333333333333333], [1, 2]]', [2, 2], [0.1, 1 / 3, 1, 2], 'list', null, 5e-17],
  ['[[1, 2,], [3, 4,],]', [2, 2], [1, 2, 3, 4], 'list', null, 0],
  ['[[[1, 2]], [[3, 4]]]', [2, 1, 2], [1, 2, 3, 4], 'list', null, 0],
  ['1, 2, 3\n4, 5, 6\n', [2, 3], [1, 2, 3, 4, 5, 6], 'rows', null, 0],
  ['1\t2\n3\t4', [2, 2], [1, 2, 3, 4], 'rows', null, 0],
  ['  0.25 0.75  ', [2], [0.25, 0.75], 'rows', null, 0.005],
  ['# a comment line\n1;2\n3;4', [2, 2], [1, 2, 3, 4], 'rows', null, 0],
  ['-1e-3, +2E+2, .5, 5.', [4], [-1e-3, 200, 0.5, 5], 'rows', null, 5e-5],
];

test('the forms people paste: PyTorch, NumPy (repr and print), lists, rows', () => {
  for (const [text, shape, values, form, dtype, res0] of FORMS) {
    const r = parseTensor(text);
    assert.deepEqual(r.shape, shape, text);
    same(r.data, values);
    assert.equal(r.form, form, text);
    assert.equal(r.dtype, dtype, text);
    // PyTorch's float32 is only implied without dtype=: after torch.set_default_dtype(torch.float64)
    // (as the lab's copied inputs set) a float64 tensor prints the same
    assert.equal(r.dtypeStated, /dtype\s*=/.test(text), `${text}: dtypeStated`);
    assert.ok(Math.abs(r.resolution[0] - res0) <= res0 * 1e-9, `${text}: resolution ${r.resolution[0]} is not ${res0}`);
    assert.ok(r.data instanceof Float64Array);
  }
});

// [text, code]
const REFUSED = [
  ['', 'paste_empty'], ['   \n ', 'paste_empty'],
  ['tensor([[0.1000, 0.2000, ..., 0.9000]])', 'paste_elided'],
  ['tensor([[0.1, …, 0.9]])', 'paste_elided'],
  ['[[1, 2], [3]]', 'paste_ragged'], ['[[1, 2], 3]', 'paste_ragged'], ['[1, [2]]', 'paste_ragged'],
  ['[[1, 2], [[3], [4]]]', 'paste_ragged'], ['1 2\n3', 'paste_ragged'],
  ['[[1, 2]', 'paste_brackets'], ['[1]]', 'paste_trailing'], [']', 'paste_not_number'], ['tensor([1, 2]', 'paste_brackets'],
  ['[[1, 2]] and more', 'paste_not_number'], ['[1, two]', 'paste_not_number'], ['hello', 'paste_not_number'],
  ['[__import__("os")]', 'paste_not_number'], ['[1, 0x10]', 'paste_not_number'], ['[1, 2e]', 'paste_not_number'],
  ['tensor([], size=(0, 3))', 'paste_empty'],
  ['tensor([1., 2.])\ntensor([3., 4.])', 'paste_trailing'],
  ['['.repeat(LIMITS.depth + 1) + '1' + ']'.repeat(LIMITS.depth + 1), 'paste_too_deep'],
  ['['.repeat(200000), 'paste_too_deep'],
  [`[${'1,'.repeat(LIMITS.values + 1)}]`, 'paste_too_large'],
  ['1 '.repeat(LIMITS.chars), 'paste_too_large'],
];

test('hostile and broken text: a ParseError with its code, nothing else', () => {
  for (const [text, code] of REFUSED) {
    assert.throws(() => parseTensor(text), (e) => e instanceof ParseError && e.code === code && typeof e.message === 'string',
      `${text.slice(0, 60)}: expected ${code}`);
  }
  for (const bad of [null, 42, ['1'], { shape: [1], data: [1] }]) {
    assert.throws(() => parseTensor(bad), (e) => e instanceof ParseError && e.code === 'paste_not_text');
  }
});

// What Debian's PyTorch and NumPy really print and save, parsed back to the same float64 values.
const PRINTS = String.raw`
import io, json, base64
import numpy as np
import torch
torch.manual_seed(0)
x = torch.randn(3, 4, dtype=torch.float64)
w = torch.softmax(x.masked_fill(torch.triu(torch.ones(3, 4, dtype=torch.bool), 1), float('-inf')), -1)
out = {}
out['torch_f64'] = [repr(x), x.tolist()]
out['torch_f32'] = [repr(x.float()), x.float().tolist()]
out['torch_grad'] = [repr(x.clone().requires_grad_() * 2), (x * 2).tolist()]
out['torch_print'] = [str(w), w.tolist()]
out['torch_small'] = [repr(x * 1e-6), (x * 1e-6).tolist()]
out['torch_masked'] = [repr(torch.tensor([[float('-inf'), 1.0], [float('nan'), 0.0]])), None]
out['torch_3d'] = [repr(x.reshape(1, 3, 4)), x.reshape(1, 3, 4).tolist()]
torch.set_default_dtype(torch.float64)   # as the lab's copied inputs set: a float64 tensor prints no dtype
out['torch_default_f64'] = [repr(torch.tensor(x.tolist())), x.tolist()]
out['torch_f32_beside_f64'] = [repr(x.float()), x.float().tolist()]
torch.set_default_dtype(torch.float32)
a = x.numpy()
out['numpy_repr'] = [repr(a), a.tolist()]
out['numpy_print'] = [str(a), a.tolist()]
out['numpy_f32'] = [repr(a.astype(np.float32)), a.astype(np.float32).tolist()]
out['list'] = [repr(a.tolist()), a.tolist()]
with np.printoptions(precision=17):
    out['numpy_full'] = [repr(a), a.tolist()]
def npy(arr, **kw):
    f = io.BytesIO()
    np.lib.format.write_array(f, arr, **kw)
    return base64.b64encode(f.getvalue()).decode()
npys = {
    'f8': [npy(a), a.tolist()],
    'f4': [npy(a.astype(np.float32)), a.astype(np.float32).tolist()],
    'fortran': [npy(np.asfortranarray(a)), a.tolist()],
    'big': [npy(a.astype('>f8')), a.tolist()],
    'v2': [npy(a, version=(2, 0)), a.tolist()],
    'int': [npy(np.arange(6, dtype=np.int64).reshape(2, 3)), np.arange(6).reshape(2, 3).tolist()],
    'bool': [npy(np.array([[True, False]])), [[1, 0]]],
    'f3d': [npy(np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))), np.arange(24.0).reshape(2, 3, 4).tolist()],
}
print('prints =', repr(base64.b64encode(json.dumps(out).encode()).decode()))
print('npys =', repr(base64.b64encode(json.dumps(npys).encode()).decode()))
`;

test('what PyTorch and NumPy really print and save reads back (to the printed precision) and names its dtype', async () => {
  const { values, error } = (await runPrograms([{ id: 'p', code: PRINTS }])).p;
  assert.equal(error, null);
  const [prints, npys] = [values.prints, values.npys].map((b) => JSON.parse(Buffer.from(b, 'base64').toString()));
  const flat = (v) => (Array.isArray(v) ? v.flat(Infinity) : [v]);
  for (const [name, [text, want]] of Object.entries(prints)) {
    const r = parseTensor(text);
    if (want === null) { same(r.data, [-Infinity, 1, NaN, 0]); continue; }
    const w = flat(want);
    assert.equal(r.data.length, w.length, name);
    let shape = []; for (let v = want; Array.isArray(v); v = v[0]) shape.push(v.length);
    assert.deepEqual(r.shape, shape, name);
    // every value within its printed resolution (0 where the text holds it exactly: repr, tolist)
    r.data.forEach((v, i) => assert.ok(Math.abs(v - w[i]) <= r.resolution[i] * (1 + 1e-9) + Math.abs(w[i]) * 1e-15,
      `${name}[${i}]: ${v} vs ${w[i]} (resolution ${r.resolution[i]})`));
    if (name === 'list' || name === 'numpy_full') assert.ok(r.resolution.every((x) => x <= 5e-16), `${name} is exact`);
    if (name === 'torch_print') assert.ok(r.resolution[0] === 5e-5 || Math.abs(r.resolution[0] - 5e-5) < 1e-12, 'four decimals');
  }
  assert.equal(parseTensor(prints.torch_f64[0]).dtype, 'float64');
  assert.equal(parseTensor(prints.torch_f32[0]).dtype, 'float32');
  assert.equal(parseTensor(prints.torch_f32_beside_f64[0]).dtypeStated, true, 'PyTorch names float32 beside the float64 default');
  assert.equal(parseTensor(prints.torch_f32_beside_f64[0]).dtype, 'float32');
  assert.equal(parseTensor(prints.torch_default_f64[0]).dtypeStated, false, 'a float64 default prints no dtype: float32 is only a guess');
  assert.equal(parseTensor(prints.numpy_f32[0]).dtype, 'float32');
  for (const [name, [b64, want]] of Object.entries(npys)) {
    const r = parseNpy(Buffer.from(b64, 'base64'));
    const w = flat(want);
    let shape = []; for (let v = want; Array.isArray(v); v = v[0]) shape.push(v.length);
    assert.deepEqual(r.shape, shape, name);
    same(r.data, w);   // a .npy holds the values exactly
  }
  assert.equal(parseNpy(Buffer.from(npys.f4[0], 'base64')).dtype, 'float32');
  assert.equal(parseNpy(Buffer.from(npys.f8[0], 'base64')).dtype, 'float64');
});

test('a broken .npy file is a ParseError with its code', () => {
  const header = (h, version = 1) => {
    const text = new TextEncoder().encode(h);
    const head = version === 1 ? [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length & 255, text.length >> 8]
      : [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0, text.length & 255, text.length >> 8, 0, 0];
    return Uint8Array.from([...head, ...text]);
  };
  const cases = [
    [new Uint8Array([1, 2, 3]), 'npy_not_npy'],
    [new TextEncoder().encode('1, 2, 3\n4, 5, 6'), 'npy_not_npy'],
    [header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 9), 'npy_version'],
    [header("{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }"), 'npy_dtype'],
    [header("{'descr': '<f8', 'shape': (2,), }"), 'npy_header'],
    [header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"), 'npy_truncated'],
    [header("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }"), 'paste_too_large'],
    [header("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1), }"), 'paste_too_deep'],
    [Uint8Array.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 255, 255]), 'npy_truncated'],
  ];
  for (const [bytes, code] of cases) {
    assert.throws(() => parseNpy(bytes), (e) => e instanceof ParseError && e.code === code, code);
  }
  // a well-formed file of two float64 values, written by hand: 1.5 and -2
  const ok = header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }");
  const data = new Uint8Array(16); new DataView(data.buffer).setFloat64(0, 1.5, true); new DataView(data.buffer).setFloat64(8, -2, true);
  const r = parseNpy(Uint8Array.from([...ok, ...data]));
  assert.deepEqual([r.shape, [...r.data], r.dtype, r.form], [[2], [1.5, -2], 'float64', 'npy']);
});
