// The core's errors in words a student reads. The core throws an Error with a stable `code` and
// named `params` (its table: wasm/include/attn/errors.hpp, exported as core.errorCodes); each
// language has one table here with a message per code, whose {placeholders} are that code's
// parameters. Nothing parses the core's English text. A message names what the student sees (W_K,
// T_max, the number of heads, never an internal function) and says what to change.
//
// Placeholders render by parameter: {arg} and {other} as the page calls them (`args`), shapes as
// (2, 3), {index} as [0, 1], {otherAxis} in words, {quantity} and the types from their tables,
// lists joined, numbers as the page prints them. {fn} (the function called) is never shown.
import { fmtErr } from './format.js';

export const errorTables = {
  zh: {
    codes: {
      shape_axes: '{arg} 有 {rank} 维，这里只接受 1 到 {maxRank} 维的张量。',
      shape_dim: '{arg} 的形状在 {index} 处是 {value}：每一维的长度必须是不小于 1 的整数。',
      shape_data: '{arg} 的形状 {shape} 需要 {elements} 个数，实际给了 {length} 个。',
      too_large: '{arg}（形状 {shape}）有 {elements} 个数，超过了上限 {limit}。请把它改小。',
      rank: '{arg} 的形状是 {shape}，有 {rank} 维；这里需要 {minRank} 到 {maxRank} 维（{layout}）。',
      empty_axis: '{arg} 的形状 {shape} 里有长度为 0 的维：每一维至少要有 1 个数。',
      not_finite: '{arg} 在 {index} 处是 {value}：这里只接受有限的数。',
      overflow: '数太大了：{quantity}超出了 float64 能表示的范围。请把输入的数改小一些。',
      shape_mismatch: '{arg} 的形状应为 {layout} = {expectedShape}，现在是 {shape}。',
      same_shape: '{arg} 的形状是 {shape}，它必须与 {other} 的形状 {otherShape} 相同。请把两者改成一样的形状。',
      axis_mismatch: '{arg} 的形状是 {shape}，但它的 {axis} 维必须是 {size}，与 {other} 的{otherAxis}一致（{other} 的形状是 {otherShape}）。请改动其中一个，让两者对上。',
      leading_axes: '{arg}（形状 {shape}）和 {other}（形状 {otherShape}）的前几维（批维）必须相同。',
      dim_range: '{arg} = {value} 不是 {other}（形状 {otherShape}）的一维：请在 {min} 到 {max} 之间选。',
      mask_rank: '遮罩作用在最后两维上，但 {arg} 的形状 {shape} 不足两维。',
      heads_not_dividing: '{heads} 个头不能平分宽度 {axis} = {width}：头数必须整除 {width}（每个头的宽度 hs = {width} / 头数）。请换一个能整除它的头数。',
      element_range: '{arg} 在 {index} 处是 {value}，超出了允许的范围 {range}。',
      integer_range: '{arg} 必须是 {min} 到 {max} 之间的整数，现在是 {value}。',
      number_range: '{arg} 必须在 {range} 之内，现在是 {value}。',
      length_range: '{arg} 必须有 {min} 到 {max} 个数，现在有 {length} 个。',
      not_one_of: '{arg} 不能是 {choice}，只能是 {choices} 之一。',
      scale_value: '缩放方式 {choice} 无效：只能是 {choices} 之一，或者一个数。',
      wrong_type: '{arg} 应该是{expectedType}，实际是{gotType}。',
      unknown_option: '不认识的选项 {arg}（可用的选项：{known}）。',
      missing: '缺少 {arg}：需要{expectedType}。',
      scale_needs_width: '按模型宽度缩放（除以 √C）需要知道 C，这里没有 C：请按头的宽度缩放，或给出一个数。',
      position_past_table: '有 T = {T} 个位置，但学习式位置表只有 T_max = {tMax} 行：位置 {tMax} 及之后没有对应的行。请把 T_max 调到至少 {T}，或者少用几个位置。',
      self_attention_only: '这项检查只适用于自注意力：请去掉 {arg}。',
      no_future: '至少要有 2 个位置才有“未来”可改，现在 T = {T}。',
      t_past_end: 't 必须在 0 到 T − 2 = {max} 之间，这样 t 之后才有位置可改；现在 t = {value}。',
      work_limit: '{quantity}的次数 {value} 超过了上限 {limit}。',
      gradcheck_size: 'gradcheck 要逐个扰动每个输入的数；这里有 {elements} 个，超过了上限 {limit}。',
      text_too_large: '{arg}有 {length} 字节，超过了上限 {limit}。',
      text_too_short: '{arg}只有 {length} 个字符，太短了：上下文长度 T_max = {tMax}，至少需要 {min} 个字符。',
      text_length: '{arg}必须有 {min} 到 {max} 个字符，现在有 {length} 个。',
      vocab_size: '{arg}里有 {vocab} 种不同的字符，词表需要 {min} 到 {max} 种。',
      bad_utf8: '{arg}在第 {byte} 字节处不是有效的 UTF-8 文本。',
      char_not_in_vocab: '模型没见过字符 {character}：它不在训练文本的词表里。请换成训练文本中出现过的字符。',
      disposed: '这个模型已经释放，请重新建立模型。',
      out_of_memory: '输入或结果太大，超出了本页 WebAssembly 内存的容量。请把它改小。',
      internal: '内核内部出错（这是程序的错误，请报告）：{detail}',
    },
    // argument paths of the JS API -> what the page calls them
    args: {
      x: 'X', a: 'A', b: 'X', q: 'Q', k: 'K', v: 'V', 'opts.wq': 'W_Q', 'opts.wk': 'W_K', 'opts.wv': 'W_V',
      'opts.memory': '编码器的输出', 'opts.heads': '头数', 'opts.t': 't', 'opts.tMax': 'T_max', 'opts.mask': '遮罩',
      'opts.dim': 'dim', 'opts.p': 'dropout 概率 p', 'opts.scale': '缩放方式', logits: 'logits', factor: 'logits 的倍数',
      text: '文本', 'opts.prompt': '开头', 'opts.temperature': '采样温度', 'opts.length': '长度',
    },
    quantities: {
      scores: '分数', outputs: '输出', projections: '投影（Q、K、V）', sums: '求和的结果', products: '乘积', gradients: '梯度',
      'kept values': 'dropout 保留下来的值', 'row sums': '行和', 'mean row sums': '平均行和', logits: 'logits 值',
      'scaled logits': '乘以倍数后的 logits 值', draws: '随机抽样', other: '计算结果',
    },
    types: {
      number: '一个数', string: '一段文字', boolean: '真或假', tensor: '一个张量', boolTensor: '一个布尔张量', numbers: '一组数',
      options: '一个选项对象', scale: '缩放方式（head、model、none 或一个数）', mask: '遮罩（none、causal 或布尔张量）',
      optionValue: '一个选项值', undefined: '未定义', null: '空值', bigint: '大整数', symbol: '符号', function: '函数',
      array: '数组', object: '对象', other: '其他类型的值',
    },
    words: { or: ' 或 ', sep: '、', anyLayout: '形状不限', axisFirst: '第一维', axisLast: '最后一维', axisSecondLast: '倒数第二维', axisN: '第 {n} 维', quote: '“{s}”' },
  },
  en: {
    codes: {
      shape_axes: '{arg} has {rank} axes; only tensors with 1 to {maxRank} axes are accepted here.',
      shape_dim: '{arg}: the length {value} at {index} of its shape must be a whole number of at least 1.',
      shape_data: '{arg} has shape {shape}, which needs {elements} numbers, but {length} were given.',
      too_large: '{arg} (shape {shape}) holds {elements} numbers, more than the limit of {limit}. Make it smaller.',
      rank: '{arg} has shape {shape}, with {rank} axes; here it needs {minRank} to {maxRank} axes ({layout}).',
      empty_axis: '{arg} has shape {shape}, with an axis of length 0: every axis needs at least one number.',
      not_finite: '{arg} holds {value} at {index}: only finite numbers are accepted here.',
      overflow: 'The numbers are too large: the {quantity} go past what a float64 can hold. Make the inputs smaller.',
      shape_mismatch: '{arg} must have shape {layout} = {expectedShape}; it has {shape}.',
      same_shape: '{arg} has shape {shape}, but it must have the same shape as {other}, {otherShape}. Give the two the same shape.',
      axis_mismatch: '{arg} has shape {shape}, but its axis {axis} must be {size}, like {otherAxis} of {other} ({other} has shape {otherShape}). Change one of them so that they match.',
      leading_axes: '{arg} (shape {shape}) and {other} (shape {otherShape}) must share their leading (batch) axes.',
      dim_range: '{arg} = {value} is not an axis of {other} (shape {otherShape}): choose from {min} to {max}.',
      mask_rank: 'A mask acts on the last two axes, but {arg} has shape {shape}, with fewer than two.',
      heads_not_dividing: '{heads} heads cannot split the width {axis} = {width} evenly: the number of heads must divide {width} (each head gets hs = {width} / heads). Choose a number of heads that divides it.',
      element_range: '{arg} holds {value} at {index}, outside the allowed range {range}.',
      integer_range: '{arg} must be a whole number from {min} to {max}; it is {value}.',
      number_range: '{arg} must lie in {range}; it is {value}.',
      length_range: '{arg} must have {min} to {max} entries; it has {length}.',
      not_one_of: '{arg} cannot be {choice}; it must be one of {choices}.',
      scale_value: 'The scale {choice} is not valid: use one of {choices}, or a number.',
      wrong_type: '{arg} must be {expectedType}, not {gotType}.',
      unknown_option: 'Unknown option {arg} (the options are: {known}).',
      missing: '{arg} is missing: it must be {expectedType}.',
      scale_needs_width: 'Scaling by the model width (dividing by √C) needs C, which this calculation does not have: scale by the head width, or give a number.',
      position_past_table: 'There are T = {T} positions, but the learned position table has only T_max = {tMax} rows: position {tMax} and later have no row. Raise T_max to at least {T}, or use fewer positions.',
      self_attention_only: 'This check works on self-attention only: remove {arg}.',
      no_future: 'At least 2 positions are needed for a future to change; T = {T}.',
      t_past_end: 't must be from 0 to T − 2 = {max}, so that positions after t exist; it is {value}.',
      work_limit: '{value} {quantity} are more than the limit of {limit}.',
      gradcheck_size: 'gradcheck perturbs every input number one at a time; there are {elements}, more than its limit of {limit}.',
      text_too_large: 'Too large: {arg} has {length} bytes, more than the limit of {limit}.',
      text_too_short: 'Too short: {arg} has only {length} characters, and the context length T_max = {tMax} needs at least {min}.',
      text_length: '{arg} must have {min} to {max} characters; it has {length}.',
      vocab_size: 'Not a vocabulary: {arg} has {vocab} distinct characters, and a vocabulary needs {min} to {max}.',
      bad_utf8: 'Not valid UTF-8: {arg} breaks off at byte {byte}.',
      char_not_in_vocab: 'The model has never seen the character {character}: it is not in the training text\'s vocabulary. Use characters that occur in the training text.',
      disposed: 'This model was released; build the model again.',
      out_of_memory: 'The input or the result is too large for this tab\'s WebAssembly memory. Make it smaller.',
      internal: 'An internal error in the core (a bug; please report it): {detail}',
    },
    args: {
      x: 'X', a: 'A', b: 'X', q: 'Q', k: 'K', v: 'V', 'opts.wq': 'W_Q', 'opts.wk': 'W_K', 'opts.wv': 'W_V',
      'opts.memory': 'the encoder output', 'opts.heads': 'the number of heads', 'opts.t': 't', 'opts.tMax': 'T_max', 'opts.mask': 'the mask',
      'opts.dim': 'dim', 'opts.p': 'the dropout p', 'opts.scale': 'the scale', logits: 'the logits', factor: 'the logit factor',
      text: 'the text', 'opts.prompt': 'the prompt', 'opts.temperature': 'the sampling temperature', 'opts.length': 'the length',
    },
    quantities: {
      scores: 'scores', outputs: 'outputs', projections: 'projections (Q, K, V)', sums: 'sums', products: 'products', gradients: 'gradients',
      'kept values': 'values dropout keeps', 'row sums': 'row sums', 'mean row sums': 'mean row sums', logits: 'logits',
      'scaled logits': 'scaled logits', draws: 'random draws', other: 'results',
    },
    types: {
      number: 'a number', string: 'a string', boolean: 'true or false', tensor: 'a tensor', boolTensor: 'a boolean tensor', numbers: 'a list of numbers',
      options: 'an object of options', scale: 'a scale (head, model, none or a number)', mask: 'a mask (none, causal or a boolean tensor)',
      optionValue: 'an option value', undefined: 'undefined', null: 'null', bigint: 'a BigInt', symbol: 'a symbol', function: 'a function',
      array: 'an array', object: 'an object', other: 'a value of another type',
    },
    words: { or: ' or ', sep: ', ', anyLayout: 'any layout', axisFirst: 'the first axis', axisLast: 'the last axis', axisSecondLast: 'the second-to-last axis', axisN: 'axis {n}', quote: '“{s}”' },
  },
};

const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, k) => values(k));
const number = (v) => (Number.isInteger(v) ? String(v).replace('-', '−') : fmtErr(v));

/** One parameter's value as a student reads it, in `lang`. */
function render(tb, name, v) {
  const { words } = tb;
  switch (name) {
    case 'arg': case 'other': return tb.args[v] ?? v.replace(/^opts\./, '');
    case 'otherAxis': return v === -1 ? words.axisLast : v === -2 ? words.axisSecondLast : v === 0 ? words.axisFirst : fill(words.axisN, () => number(v));
    case 'quantity': return tb.quantities[v] ?? tb.quantities.other;
    case 'expectedType': case 'gotType': return tb.types[v] ?? tb.types.other;
    case 'layout': return v ? v.split(' | ').join(words.or) : words.anyLayout;
    case 'index': return `[${v.join(', ')}]`;
    case 'choice': case 'character': return fill(words.quote, () => v);
    case 'choices': return v.map((c) => fill(words.quote, () => c)).join(words.sep);
    default:
      if (typeof v === 'number') return number(v);
      if (Array.isArray(v)) return typeof v[0] === 'string' ? v.join(words.sep) : `(${v.join(', ')})`;   // a list, or a shape
      return String(v);
  }
}

/** The message for a core error in `lang`; an Error without a code (not from the core) keeps its text. */
export function errorMessage(lang, error) {
  const tb = errorTables[lang];
  const template = tb.codes[error?.code];
  if (!template) return String(error?.message ?? error);
  return fill(template, (k) => render(tb, k, error.params[k]));
}
