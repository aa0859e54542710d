// Languages: Chinese (default) and English. Shared UI strings live here; each section keeps its
// own labels beside its controller. t(key, params) fills {name} placeholders.

export const LANGS = ['zh', 'en'];

export const shared = {
  zh: {
    title: '注意力实验室',
    subtitle: '第 18 章配套：让当前位置挑选有用的过去',
    contents: '目录',
    reset: '重置本节',
    loading: '正在加载 WebAssembly 内核…',
    loadFailed: '内核加载失败：{message}',
    coreError: '内核拒绝了这组输入（显示的是上一次的有效结果）：',
    cellEmpty: '第 {row} 行第 {col} 列为空，请填入数字。',
    cellNaN: '第 {row} 行第 {col} 列的“{text}”不是数字。',
    cellInf: '第 {row} 行第 {col} 列的 {text} 超出了有限数的范围。',
    cellKeep: '其余结果保持为上一次的有效输入。',
    addRow: '加一行', removeRow: '减一行', addCol: '加一列', removeCol: '减一列',
    row: '行', col: '列',
    shape: '形状',
    asTable: '以表格查看数据',
    check: '检查', hint: '提示', solution: '解答',
    correct: '正确！内核算出的答案是 {expected}。',
    incorrect: '还不对。再想想，或者打开提示。',
    answerInvalid: '请在每个输入框里填入数字。',
    urlNotice: '链接中的部分参数无效，已改用默认值：{names}',
    lang: 'English',
    langLabel: '切换到英文',
    exercises: '练习',
    on: '开', off: '关',
    nan: 'NaN',
    cellValue: '{label}：第 {row} 行第 {col} 列 = {value}',
    cellAxes: '{label}：接收 t = {row}，来源 j = {col}：{value}',
    axesPast: '行 t 接收 · 列 j 给出（来源）',
    axesSelf: '行 t 接收（查询）· 列 j 给出（键，来源）',
    axesCross: '行 t：输出侧的接收位置（查询，共 T_out 个）· 列 j：编码器侧的来源位置（键，共 T_in 个）',
    embedSource: '来自注意力实验室',
    intRange: '请输入 {min} 到 {max} 之间的整数。',
    seed: '随机种子', causal: '因果遮罩', rowSum: '行和', T: '序列长度 T', heads: '头数',
    pytorchShow: '以 PyTorch 代码查看', pytorchCode: 'PyTorch 程序', pytorchCopy: '复制代码',
    pytorchHelp: '一段 PyTorch（float64）程序，复现本节此刻的状态：保存为 .py 用 python3 运行（PyTorch 1.13 及以上），它打印的数字就是页面上显示的数字。',
    pytorchCopied: '已复制到剪贴板。', pytorchSelected: '程序已选中，按 Ctrl+C（Mac 上 ⌘C）复制。',
    pytorchDownload: '下载 {name}', pytorchFailed: '写不出程序：{message}',
  },
  en: {
    title: 'Attention Lab',
    subtitle: 'Companion to Chapter 18: let the current position pick useful past',
    contents: 'Contents',
    reset: 'Reset this section',
    loading: 'Loading the WebAssembly core…',
    loadFailed: 'The core failed to load: {message}',
    coreError: 'The core rejected this input (showing the last valid result):',
    cellEmpty: 'Row {row}, column {col} is empty: enter a number.',
    cellNaN: 'Row {row}, column {col}: “{text}” is not a number.',
    cellInf: 'Row {row}, column {col}: {text} is not a finite number.',
    cellKeep: 'The results keep the last valid input.',
    addRow: 'Add row', removeRow: 'Remove row', addCol: 'Add column', removeCol: 'Remove column',
    row: 'row', col: 'column',
    shape: 'shape',
    asTable: 'Show the data as a table',
    check: 'Check', hint: 'Hint', solution: 'Solution',
    correct: 'Correct! The core computes {expected}.',
    incorrect: 'Not yet. Think again, or open the hint.',
    answerInvalid: 'Enter a number in every box.',
    urlNotice: 'Some values in the link were not valid and were reset to defaults: {names}',
    lang: '中文',
    langLabel: 'Switch to Chinese',
    exercises: 'Exercises',
    on: 'on', off: 'off',
    nan: 'NaN',
    cellValue: '{label}: row {row}, column {col} = {value}',
    cellAxes: '{label}: receiver t = {row}, source j = {col}: {value}',
    axesPast: 'row t receives · column j gives (the source)',
    axesSelf: 'row t receives (query) · column j gives (key, the source)',
    axesCross: 'row t: a receiving position on the output side (query, T_out of them) · column j: a source position on the encoder side (key, T_in of them)',
    embedSource: 'From Attention Lab',
    intRange: 'Enter a whole number from {min} to {max}.',
    seed: 'Random seed', causal: 'Causal mask', rowSum: 'row sum', T: 'Length T', heads: 'Heads',
    pytorchShow: 'Show as PyTorch', pytorchCode: 'PyTorch program', pytorchCopy: 'Copy the program',
    pytorchHelp: 'A PyTorch (float64) program that reproduces this section as it is now: save it as a .py file and run it with python3 (PyTorch 1.13 or later); it prints the numbers the page shows.',
    pytorchCopied: 'Copied to the clipboard.', pytorchSelected: 'The program is selected: press Ctrl+C (⌘C on a Mac) to copy it.',
    pytorchDownload: 'Download {name}', pytorchFailed: 'Could not write the program: {message}',
  },
};

export function makeT(lang, ...tables) {
  return (key, params = {}) => {
    let s;
    for (const table of [...tables, shared]) if (table?.[lang] && Object.hasOwn(table[lang], key)) { s = table[lang][key]; break; }
    if (s === undefined) s = key;
    return s.replace(/\{(\w+)\}/g, (_, k) => (params[k] !== undefined ? String(params[k]) : `{${k}}`));
  };
}
