// Reading what a student types into an exercise's answer box: a number or a short expression.
// No DOM here, and no eval (the page's CSP forbids it): a small recursive-descent parser.
//
// Grammar (whitespace is ignored; full-width characters from an IME are read as their ASCII
// forms; "−" is a minus sign, "×" and "·" multiply, "÷" and "⁄" divide):
//   expr    = term { ("+" | "-") term }
//   term    = unary { ("*" | "/") unary | implicit }     implicit: 2√2, 2π, 3(1+1), 2 sqrt(2);
//                                                        left to right: 1/2π = (1/2)·π, as a calculator reads it
//   unary   = ("-" | "+") unary | power                  -2^2 = -(2^2) = -4
//   power   = atom [ "^" unary ]                         right to left: 2^3^2 = 2^9; 2^-1 = 0.5
//   atom    = number | "π" | "pi" | "e" | "√" atom | name "(" expr ")" | name atom | "(" expr ")"
//   number  = 12 | 0.25 | .5 | 1e-5 | 2.5E3
//   name    = "sqrt" | "ln" | "log" | "exp" | "sin" | "cos" | "tan"
//                                                        log is the natural logarithm, as in the chapter;
//                                                        angles in radians (sin 1, as in 18.5's positions)
// "√" takes the atom right after it: √2/2 = (√2)/2, √(1/2) = 0.7071. A function name without
// parentheses also takes one atom: ln 2, sqrt 2. The value must be a finite real number.
//
// parseAnswer(text) -> {value, plain} (plain: the text was an ordinary number) or
// {error: 'empty' | 'syntax' | 'range'} (range: the expression has no finite real value).

const MAX_LENGTH = 200;
const FUNCTIONS = { sqrt: Math.sqrt, ln: Math.log, log: Math.log, exp: Math.exp, sin: Math.sin, cos: Math.cos, tan: Math.tan };
const CONSTANTS = { π: Math.PI, pi: Math.PI, e: Math.E };
const PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function tokenize(s) {
  const tokens = [];
  let i = 0;
  while (i < s.length) {
    const rest = s.slice(i);
    let m;
    if ((m = /^\s+/.exec(rest))) { i += m[0].length; continue; }
    if ((m = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(rest))) tokens.push({ kind: 'num', value: Number(m[0]) });
    else if ((m = /^(sqrt|ln|log|exp|sin|cos|tan)(?![a-z])/i.exec(rest))) tokens.push({ kind: 'fn', value: m[0].toLowerCase() });
    else if ((m = /^(pi|π|e)(?![a-z])/i.exec(rest))) tokens.push({ kind: 'const', value: CONSTANTS[m[0].toLowerCase()] });
    else if ((m = /^[-+*/^()√]/.exec(rest))) tokens.push({ kind: m[0] });
    else return null;
    i += m[0].length;
  }
  return tokens;
}

/** Normalise what keyboards and IMEs produce to the grammar's characters. */
function normalise(text) {
  return text.normalize('NFKC')
    .replace(/[−–—]/g, '-').replace(/[×·⋅∙]/g, '*').replace(/[÷⁄∕]/g, '/');
}

export function parseAnswer(text) {
  const source = String(text ?? '').trim();
  if (source === '') return { error: 'empty' };
  if (source.length > MAX_LENGTH) return { error: 'syntax' };
  const s = normalise(source);
  const tokens = tokenize(s);
  if (!tokens) return { error: 'syntax' };
  let pos = 0;
  const peek = () => tokens[pos]?.kind;
  const fail = () => { throw new SyntaxError('answer'); };
  const expect = (kind) => { if (peek() !== kind) fail(); pos++; };
  // what may follow a factor without "*" (2√2, 2π, 3(1+1), 2 sqrt 2; not a second number: "2 3" is an error)
  const startsAtom = () => ['const', 'fn', '(', '√'].includes(peek());

  function expr() {
    let v = term();
    while (peek() === '+' || peek() === '-') {
      const op = tokens[pos++].kind;
      const r = term();
      v = op === '+' ? v + r : v - r;
    }
    return v;
  }
  function term() {
    let v = unary();
    for (;;) {
      if (peek() === '*') { pos++; v *= unary(); }
      else if (peek() === '/') { pos++; v /= unary(); }
      else if (startsAtom()) v *= power();
      else return v;
    }
  }
  function unary() {
    if (peek() === '-') { pos++; return -unary(); }
    if (peek() === '+') { pos++; return unary(); }
    return power();
  }
  function power() {
    const base = atom();
    if (peek() !== '^') return base;
    pos++;
    return base ** unary();
  }
  function atom() {
    const tok = tokens[pos];
    if (!tok) fail();
    pos++;
    switch (tok.kind) {
      case 'num': case 'const': return tok.value;
      case '√': return Math.sqrt(atom());
      case 'fn': return FUNCTIONS[tok.value](atom());
      case '(': { const v = expr(); expect(')'); return v; }
      default: return fail();
    }
  }

  let value;
  try {
    value = expr();
    if (pos !== tokens.length) fail();
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof RangeError) return { error: 'syntax' };   // RangeError: nesting too deep
    throw e;
  }
  if (!Number.isFinite(value)) return { error: 'range' };
  return { value, plain: PLAIN.test(s.replace(/\s+/g, '')) };
}
